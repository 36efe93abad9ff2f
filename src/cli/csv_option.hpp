// `--csv [FILE]` (plan, compare, collective): the command's list of results as an RFC 4180
// table (report/csv_table.hpp). Without FILE (or with "-") the table replaces the text on
// stdout, as --json does; with FILE it is written there and stdout keeps its usual output.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace topoplan::cli {

struct CsvOption {
  CLI::Option* option = nullptr;
  std::string path;
  bool given() const { return option != nullptr && option->count() > 0; }
  bool to_stdout() const { return given() && (path.empty() || path == "-"); }
};

// `rows` says what one row is ("one row per ranked strategy").
void add_csv_option(CLI::App& sub, CsvOption& o, const std::string& rows);

// Renders `list` of the JSON document `json` and writes it where `o` says. Returns true when it
// went to stdout (the caller then prints nothing else there).
bool write_csv(const CsvOption& o, const std::string& json, std::string_view list);

}  // namespace topoplan::cli
