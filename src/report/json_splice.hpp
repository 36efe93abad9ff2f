// Large arrays written straight to the stream inside an nlohmann document: a cluster plan's
// placement lists every rank (16,384 objects at 2,048 servers), and building them as a tree
// cost more time and memory than the search. The document holds a placeholder string where an
// array goes; dump_spliced writes j.dump(indent) with each placeholder replaced by what its
// writer emits, byte for byte what the tree would have printed (tests/report/json_splice_test).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace topoplan::report {

// Writes the value at a placeholder; `depth` is the number of indent steps of the line that
// holds its key (the value's closing bracket goes at that depth).
using SpliceWriter = std::function<void(std::ostream& os, int depth)>;

struct Splice {
  std::string placeholder;  // a string value in the document, unique (checked)
  SpliceWriter write;
};

// Placeholder n: a string starting with a NUL character (printed \u0000), which no name or id
// of a shipped file holds; dump_spliced checks that each occurs exactly once and throws
// std::logic_error otherwise, so a crafted input could cause an error, never wrong output.
std::string splice_placeholder(int n);

void dump_spliced(std::ostream& os, const nlohmann::ordered_json& j, int indent,
                  const std::vector<Splice>& splices);

// An array of flat objects (string or integer fields), as dump(indent) prints it at `depth`.
// `row(i, fields)` fills the i-th object's (key, already-encoded JSON value) pairs.
using FlatRow =
    std::function<void(std::size_t i, std::vector<std::pair<const char*, std::string>>&)>;
void write_flat_array(std::ostream& os, int indent, int depth, std::size_t rows,
                      const FlatRow& row);

// An array of strings, as dump(indent) prints it at `depth`.
void write_string_array(std::ostream& os, int indent, int depth,
                        const std::vector<std::string>& items);

// A JSON string literal with nlohmann's escaping.
std::string json_string(const std::string& s);

}  // namespace topoplan::report
