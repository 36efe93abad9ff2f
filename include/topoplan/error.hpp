// Errors thrown by the library. The library never prints or exits; the CLI maps an Error's
// exit_code() to the process exit status (2 bad input, 1 internal error).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topoplan {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Something the user gave us is wrong: a flag value, a file, a name. Exit code 2.
// `source` names the file (or "--flag"), `location` a JSON pointer ("/links/3/type") or "line 12".
class InputError : public Error {
 public:
  InputError(const std::string& source, const std::string& location, const std::string& what);
  explicit InputError(const std::string& what);
  const std::string& source() const { return source_; }
  const std::string& location() const { return location_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string source_, location_, detail_;
};

// A request field has a bad value. `field` names the member of the request type ("batch";
// "prompt/output" for a rule over several). The library never names a command-line flag: a
// detail refers to another field as "{pp}", what() renders it "pp", and the CLI renders field
// and references with its flag table (src/cli/field_flags.cpp). what() is "field: detail";
// source() is the field, location() is empty.
class FieldError : public InputError {
 public:
  FieldError(const std::string& field, const std::string& detail_template);
  const std::string& field() const { return source(); }
  // The detail with each "{name}" replaced by `name_of(name)`.
  std::string detail_with(const std::function<std::string(const std::string&)>& name_of) const;

 private:
  std::string template_;
};

// A name that is not in a catalog; the message lists the closest known names.
class UnknownNameError : public InputError {
 public:
  UnknownNameError(const std::string& kind, const std::string& name,
                   const std::vector<std::string>& known);
};

// A broken invariant inside topoplan. Exit code 1.
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& what) : Error("internal error: " + what, 1) {}
};

// "line L, column C" of a 0-based byte offset into `text`, for messages about text files.
std::string line_column_location(const std::string& text, std::size_t byte_offset);

// The names among `known` closest to `name` by edit distance (at most `max`), best first.
std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& known, std::size_t max = 3);

}  // namespace topoplan
