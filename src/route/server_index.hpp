// Groups a topology's devices by server and finds servers wired identically to an earlier one,
// so paths inside a server are searched once per distinct wiring and then translated.
#pragma once

#include <vector>

#include "topoplan/route.hpp"

namespace topoplan::route {

class ServerIndex {
 public:
  explicit ServerIndex(const Topology& t);

  // Group of a device: node + 1 (so devices with node -1 share group 0); -1 for network switches.
  int group(int device) const { return group_of_[device]; }
  int template_of(int group) const { return template_of_[group]; }
  const std::vector<int>& members(int group) const { return members_[group]; }
  const std::vector<int>& slot_of() const { return slot_of_; }
  int slot(int device) const { return slot_of_[device]; }
  // The device in `group` at the position `device` holds in its own group.
  int same_slot(int device, int group) const { return members_[group][slot_of_[device]]; }
  // `p` (a path inside group `from`) rewritten onto the identically wired group `to`.
  Path translate(const Path& p, int from, int to) const;
  // p's hops rewritten onto group `to`, appended to `hops` (no Path is built).
  void append_translated(const Path& p, int from, int to, std::vector<DirLink>& hops) const;

 private:
  bool same_wiring(const Topology& t, int a, int b) const;

  std::vector<int> group_of_, slot_of_, link_slot_, template_of_;
  std::vector<std::vector<int>> members_, links_;
};

}  // namespace topoplan::route
