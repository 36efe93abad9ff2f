// _topoplan: the compiled half of the Python module `topoplan` (src/python/topoplan/__init__.py).
// It runs one of topoplan's commands in this process, through the same app the `topoplan` program
// parses (cli/app.hpp), so a keyword argument means exactly what its flag means: same defaults,
// same checks, same JSON. Python keywords become flags here because only the app knows which
// options are on/off switches and which take a value.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/field_flags.hpp"
#include "cli/suggest.hpp"
#include "topoplan/error.hpp"

namespace py = pybind11;

namespace {

// One command at a time: std::cout is shared by the whole process, and building an app resets
// the --help examples (cli::example_lines). The searches inside use their own threads.
std::mutex one_at_a_time;

// The subcommand that `path` names ({"model", "roofline"}), or null.
CLI::App* find_command(CLI::App& app, const std::vector<std::string>& path) {
  CLI::App* at = &app;
  for (const std::string& name : path) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : at->get_subcommands({}))
      if (sub->get_name() == name) next = sub;
    if (next == nullptr) return nullptr;
    at = next;
  }
  return at;
}

// "tpot_max" for "--tpot-max": the keyword a Python caller writes for a flag.
std::string keyword_of(const std::string& flag) {
  std::string k = flag.substr(flag.rfind('-', 1) == 1 ? 2 : 1);
  for (char& c : k)
    if (c == '-') c = '_';
  return k;
}

std::vector<std::string> keywords(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& flag : o->get_lnames()) out.push_back(keyword_of("--" + flag));
  return out;
}

// One keyword argument as command-line words. True/False switch a flag on/off; a value option
// takes str(value) (bool as true/false); a list or tuple repeats the flag; None leaves it out.
void append_option(const CLI::App& cmd, const std::string& command, const std::string& key,
                   py::handle value, std::vector<std::string>& argv) {
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  const CLI::Option* o = cmd.get_option_no_throw(flag);
  if (o == nullptr || o->get_lnames().empty()) {
    std::string hint;
    for (const std::string& near : topoplan::closest_names(key, keywords(cmd), 1))
      hint = "; did you mean " + near + "?";
    throw topoplan::InputError(key, "", "no such option of topoplan " + command + hint);
  }
  if (value.is_none()) return;
  // --json is a bare switch; --csv [FILE] may be bare or take a value; --batch takes one.
  const bool bare = o->get_items_expected_min() == 0, takes_value = o->get_items_expected_max() > 0;
  if (bare && py::isinstance<py::bool_>(value)) {
    if (value.cast<bool>()) argv.push_back(flag);
    return;
  }
  if (!takes_value) throw topoplan::InputError(key, "", "is an on/off flag: pass True or False");
  const auto word = [](py::handle v) {
    if (py::isinstance<py::bool_>(v)) return std::string(v.cast<bool>() ? "true" : "false");
    return py::str(v).cast<std::string>();
  };
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    for (py::handle v : value) {
      argv.push_back(flag);
      argv.push_back(word(v));
    }
    return;
  }
  argv.push_back(flag);
  argv.push_back(word(value));
}

// std::cout and std::cerr into strings while a command runs; restored on every exit path.
class Capture {
 public:
  Capture() : out_(std::cout.rdbuf(out.rdbuf())), err_(std::cerr.rdbuf(err.rdbuf())) {}
  ~Capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::ostringstream out, err;

 private:
  std::streambuf* out_;
  std::streambuf* err_;
};

py::dict error_dict(const char* kind, const std::string& message, int exit_code,
                    const topoplan::InputError* input = nullptr) {
  py::dict e;
  e["kind"] = kind;
  e["message"] = message;
  e["exit_code"] = exit_code;
  e["source"] = input ? input->source() : "";
  e["location"] = input ? input->location() : "";
  e["detail"] = input ? input->detail() : "";
  return e;
}

// Runs `topoplan <command...> <positionals...> <options as flags...>`. Returns {"exit_code",
// "stdout", "stderr", "error"}: error is None or {"kind": "input" | "error" | "internal",
// "message", "exit_code", "source", "location", "detail"}; the Python side raises it.
py::dict run(const std::vector<std::string>& command, const std::vector<std::string>& positionals,
             const py::dict& options) {
  py::dict result;
  result["exit_code"] = 2;
  result["stdout"] = "";
  result["stderr"] = "";
  result["error"] = py::none();
  std::string joined;
  for (const std::string& c : command) joined += (joined.empty() ? "" : " ") + c;

  topoplan::cli::Action action;
  std::vector<std::string> argv{"topoplan"};
  int rc = 2;
  std::string out, err;
  py::object error = py::none();
  {
    std::unique_ptr<CLI::App> app;
    std::unique_lock lock(one_at_a_time, std::defer_lock);
    {
      py::gil_scoped_release free;
      lock.lock();
      app = topoplan::cli::make_app(action);
    }
    CLI::App* cmd = find_command(*app, command);
    if (cmd == nullptr) {
      result["error"] = error_dict("input", "no such command: topoplan " + joined, 2);
      return result;
    }
    argv.insert(argv.end(), command.begin(), command.end());
    argv.insert(argv.end(), positionals.begin(), positionals.end());
    try {
      for (const auto& [key, value] : options)
        append_option(*cmd, joined, key.cast<std::string>(), value, argv);
    } catch (const topoplan::InputError& e) {
      result["error"] = error_dict("input", e.what(), 2, &e);
      return result;
    }
    std::string kind, message;
    std::optional<topoplan::InputError> input;  // the located error, for source/location
    {
      py::gil_scoped_release free;  // parse and search without holding Python
      Capture capture;
      std::vector<const char*> args;
      for (const std::string& a : argv) args.push_back(a.c_str());
      try {
        app->parse(static_cast<int>(args.size()), args.data());
        rc = action ? action() : 0;
      } catch (const CLI::CallForHelp&) {
        std::cout << cmd->help();
        rc = 0;
      } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        rc = 0;
      } catch (const CLI::ParseError& e) {
        kind = "input";
        message =
            topoplan::cli::parse_error_text(e, *app, static_cast<int>(args.size()), args.data());
        rc = 2;
      } catch (const topoplan::FieldError& e) {
        kind = "input";
        message = topoplan::cli::flag_message(e);
        input = e;
        rc = 2;
      } catch (const topoplan::InputError& e) {
        kind = "input";
        message = e.what();
        input = e;
        rc = 2;
      } catch (const topoplan::Error& e) {
        kind = "error";
        message = e.what();
        rc = e.exit_code();
      } catch (const std::exception& e) {
        kind = "internal";
        message = std::string("internal error: ") + e.what();
        rc = 1;
      }
      std::cout.flush();
      out = capture.out.str();
      err = capture.err.str();
    }
    if (!kind.empty()) error = error_dict(kind.c_str(), message, rc, input ? &*input : nullptr);
  }
  result["exit_code"] = rc;
  result["stdout"] = out;
  result["stderr"] = err;
  result["error"] = error;
  return result;
}

}  // namespace

PYBIND11_MODULE(_topoplan, m) {
  m.doc() = "topoplan's commands, run in-process (use the package `topoplan`, not this module)";
  m.def("run", &run, py::arg("command"), py::arg("positionals"), py::arg("options"),
        "Run `topoplan COMMAND POSITIONALS --option value ...`; options are Python keywords.");
  m.def(
      "help",
      [](const std::vector<std::string>& command) {
        py::gil_scoped_release free;  // a running command holds the lock and wants the GIL back
        const std::lock_guard lock(one_at_a_time);
        topoplan::cli::Action action;
        std::unique_ptr<CLI::App> app = topoplan::cli::make_app(action);
        CLI::App* cmd = find_command(*app, command);
        return cmd ? cmd->help() : std::string();
      },
      py::arg("command"), "The --help text of a command (\"\" when there is no such command).");
  m.attr("__version__") = "0.1.0";
}
