// Free text (descriptions) in tables and text output: a bounded prefix, so a file's description
// of tens of kilobytes does not flood a terminal. JSON output keeps the full string.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace topoplan::report {

// Characters (UTF-8 code points) of free text shown in text output: the longest shipped
// description is 403.
inline constexpr std::size_t kTextPrefixChars = 1000;

// `s` itself when it has at most `max_chars` characters; else its first `max_chars` characters
// (never a partial UTF-8 sequence), an ellipsis and the full length: "aaa… (52,428,800
// characters)".
std::string text_prefix(std::string_view s, std::size_t max_chars = kTextPrefixChars);

// 52428800 → "52,428,800".
std::string grouped(std::size_t n);

}  // namespace topoplan::report
