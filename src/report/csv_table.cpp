// JSON list → RFC 4180 table (csv_table.hpp).
#include "report/csv_table.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

using Json = nlohmann::ordered_json;

// Every scalar (or array) under `j`, keyed by its dotted path below `prefix`.
void flatten(const Json& j, const std::string& prefix, std::vector<std::string>& order,
             std::map<std::string, std::string>& cells) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [key, value] : j.items())
      flatten(value, prefix.empty() ? key : prefix + "." + key, order, cells);
    return;
  }
  std::string text;
  if (j.is_string())
    text = j.get<std::string>();
  else if (!j.is_null())
    text = j.dump();  // numbers and booleans as the writer printed them; arrays compact
  if (!cells.count(prefix)) order.push_back(prefix);
  cells[prefix] = text;
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_list_csv(const std::string& json, std::string_view list) {
  const Json doc = Json::parse(json);
  const auto it = doc.find(std::string(list));
  if (it == doc.end() || !it->is_array())
    throw InternalError("csv: the document has no list '" + std::string(list) + "'");
  std::vector<std::string> columns;
  std::map<std::string, bool> seen;
  std::vector<std::map<std::string, std::string>> rows;
  for (const Json& element : *it) {
    std::vector<std::string> order;
    std::map<std::string, std::string> cells;
    flatten(element, element.is_object() ? "" : "value", order, cells);
    for (const std::string& c : order)
      if (!seen[c]) {
        seen[c] = true;
        columns.push_back(c);
      }
    rows.push_back(std::move(cells));
  }
  std::string out;
  auto line = [&out](const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    out += "\r\n";
  };
  line(columns);
  for (const auto& row : rows) {
    std::vector<std::string> fields;
    fields.reserve(columns.size());
    for (const std::string& c : columns) {
      const auto cell = row.find(c);
      fields.push_back(cell == row.end() ? "" : cell->second);
    }
    line(fields);
  }
  return out;
}

}  // namespace topoplan::report
