// Names of path classes (NCCL's topoPathTypeStr order, src/graph/topo.cc).
#include <array>

#include "core/name_table.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

namespace {
constexpr std::array<NameEntry<PathClass>, 12> kPathClassNames{{
    {PathClass::LOC, "LOC"},
    {PathClass::NVL, "NVL"},
    {PathClass::NVB, "NVB"},
    {PathClass::C2C, "C2C"},
    {PathClass::PIX, "PIX"},
    {PathClass::PXB, "PXB"},
    {PathClass::P2C, "P2C"},
    {PathClass::PXN, "PXN"},
    {PathClass::PHB, "PHB"},
    {PathClass::SYS, "SYS"},
    {PathClass::NET, "NET"},
    {PathClass::DIS, "DIS"},
}};
static_assert(names_every_value(kPathClassNames) &&
              kPathClassNames.size() == static_cast<std::size_t>(PathClass::DIS) + 1);
}  // namespace

std::string_view to_string(PathClass c) {
  return name_of(kPathClassNames, c, "DIS");
}

}  // namespace topoplan
