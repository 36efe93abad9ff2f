// --csv [FILE] (csv_option.hpp).
#include "cli/csv_option.hpp"

#include <iostream>

#include "io/output_file.hpp"
#include "report/csv_table.hpp"

namespace topoplan::cli {

void add_csv_option(CLI::App& sub, CsvOption& o, const std::string& rows) {
  o.option = sub.add_option("--csv", o.path,
                            "CSV table (RFC 4180), " + rows +
                                ", the JSON keys as columns (nested keys joined with dots): "
                                "to FILE, or to stdout instead of the table when FILE is "
                                "omitted or '-'")
                 ->expected(0, 1);
}

bool write_csv(const CsvOption& o, const std::string& json, std::string_view list) {
  if (!o.given()) return false;
  const std::string table = report::json_list_csv(json, list);
  if (o.to_stdout()) {
    std::cout << table;
    return true;
  }
  detail::write_output_file(o.path, table);
  return false;
}

}  // namespace topoplan::cli
