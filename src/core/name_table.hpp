// One table per enum instead of a switch for its name and a second list for parsing it.
// Header-only so every layer can use it (the enums live in different public headers).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topoplan/error.hpp"

namespace topoplan {

template <typename E>
using NameEntry = std::pair<E, std::string_view>;

// True when entry i names the enumerator with value i, for every i. With
// static_assert(names_every_value(table) && table.size() == <last enumerator> + 1), a missing,
// duplicated or misplaced entry fails to compile; unlike -Wswitch it cannot see an enumerator
// added after the named last one, so that one's table entry is on whoever adds it.
template <typename E, std::size_t N>
constexpr bool names_every_value(const std::array<NameEntry<E>, N>& table) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].first) != i || table[i].second.empty()) return false;
  return true;
}

// The name of `value` in `table`; `fallback` for a value the table lacks (a corrupt enum).
template <typename E, std::size_t N>
constexpr std::string_view name_of(const std::array<NameEntry<E>, N>& table, E value,
                                   std::string_view fallback = "?") {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return fallback;
}

// The value whose name `equal`s `text`, or UnknownNameError(kind, text, every name in table
// order), which suggests the closest ones.
template <typename E, std::size_t N, typename Equal>
E value_of(const std::array<NameEntry<E>, N>& table, std::string_view text, const std::string& kind,
           Equal equal) {
  for (const auto& [v, name] : table)
    if (equal(name, text)) return v;
  std::vector<std::string> known;
  for (const auto& entry : table) known.emplace_back(entry.second);
  throw UnknownNameError(kind, std::string(text), known);
}

}  // namespace topoplan
