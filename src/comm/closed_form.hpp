// Fast path: closed-form link loads for symmetric single-server NVSwitch groups.
#pragma once

#include <optional>

#include "comm/loads.hpp"

namespace topoplan::comm {

// The GroupLoad the general engine would find for ring or NVLS on `g`, without routing any flow;
// nullopt when the group is not symmetric enough (several servers, no NVSwitch, broadcast, ...).
std::optional<GroupLoad> closed_form_load(const Router& r, const GroupInfo& g, Algorithm a,
                                          CollOp op, double nvls_efficiency);

}  // namespace topoplan::comm
