// Groups a topology's devices by server and finds servers wired identically to an earlier one,
// so paths inside a server are searched once per distinct wiring and then translated.
#pragma once

#include <span>
#include <vector>

#include "topoplan/route.hpp"

namespace topoplan::route {

class ServerIndex {
 public:
  explicit ServerIndex(const Topology& t);

  // Group of a device: node + 1 (so devices with node -1 share group 0); -1 for network switches.
  int group(int device) const { return group_of_[device]; }
  int template_of(int group) const { return template_of_[group]; }
  std::span<const int> members(int group) const { return members_.of(group); }
  const std::vector<int>& slot_of() const { return slot_of_; }
  int slot(int device) const { return slot_of_[device]; }
  // The device in `group` at the position `device` holds in its own group.
  int same_slot(int device, int group) const {
    return members_.of(group)[static_cast<std::size_t>(slot_of_[device])];
  }
  // `p` (a path inside group `from`) rewritten onto the identically wired group `to`.
  Path translate(const Path& p, int from, int to) const;
  // p's hops rewritten onto group `to`, appended to `hops` (no Path is built).
  void append_translated(const Path& p, int from, int to, std::vector<DirLink>& hops) const;

 private:
  bool same_wiring(const Topology& t, int a, int b) const;

  // Each group's devices (links) in index order, all groups back to back: one vector per
  // server was 14 MB of small allocations per Router at 12,500 servers (issue 32).
  struct Lists {
    std::vector<int> start, items;  // group g's items are items[start[g], start[g + 1])
    std::span<const int> of(int g) const {
      const auto b = static_cast<std::size_t>(start[static_cast<std::size_t>(g)]);
      const auto e = static_cast<std::size_t>(start[static_cast<std::size_t>(g) + 1]);
      return {items.data() + b, e - b};
    }
  };

  std::vector<int> group_of_, slot_of_, link_slot_, template_of_;
  Lists members_, links_;
};

}  // namespace topoplan::route
