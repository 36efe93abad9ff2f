#include "report/text_prefix.hpp"

namespace topoplan::report {

namespace {
// A UTF-8 continuation byte (10xxxxxx) is not the start of a character.
bool starts_character(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}
}  // namespace

std::string grouped(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string text_prefix(std::string_view s, std::size_t max_chars) {
  std::size_t chars = 0, cut = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!starts_character(s[i])) continue;
    if (chars == max_chars) cut = i;  // the byte where character max_chars + 1 begins
    ++chars;
  }
  if (chars <= max_chars) return std::string(s);
  return std::string(s.substr(0, cut)) + "\xe2\x80\xa6 (" + grouped(chars) + " characters)";
}

}  // namespace topoplan::report
