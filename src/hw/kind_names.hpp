// The names of the device and link kinds, in one place for to_string() and the parsers.
#pragma once

#include <array>

#include "core/name_table.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/topology.hpp"

namespace topoplan::detail {

inline constexpr std::array<NameEntry<DeviceType>, 6> kDeviceTypeNames{{
    {DeviceType::Gpu, "gpu"},
    {DeviceType::NvSwitch, "nvswitch"},
    {DeviceType::PcieSwitch, "pcie-switch"},
    {DeviceType::Cpu, "cpu"},
    {DeviceType::Nic, "nic"},
    {DeviceType::NetSwitch, "net-switch"},
}};
static_assert(names_every_value(kDeviceTypeNames) &&
              kDeviceTypeNames.size() == static_cast<std::size_t>(DeviceType::NetSwitch) + 1);

inline constexpr std::array<NameEntry<LinkKind>, 5> kLinkKindNames{{
    {LinkKind::NVLink, "nvlink"},
    {LinkKind::PCIe, "pcie"},
    {LinkKind::C2C, "c2c"},
    {LinkKind::CpuLink, "cpu-link"},
    {LinkKind::Network, "network"},
}};
static_assert(names_every_value(kLinkKindNames) &&
              kLinkKindNames.size() == static_cast<std::size_t>(LinkKind::Network) + 1);

}  // namespace topoplan::detail
