// Internal: the table written by cmake/embed_write.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace topoplan::detail {
struct EmbeddedFile {
  std::string_view path;
  std::string_view data;
};
const std::vector<EmbeddedFile>& embedded_table();
}  // namespace topoplan::detail
