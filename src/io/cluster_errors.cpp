#include "io/cluster_errors.hpp"

namespace topoplan::detail {

namespace {
struct OptionPlace {
  const char* option;   // make_cluster's location
  const char* pointer;  // in a cluster file
  const char* flag;     // on the command line
  const char* key;      // in a compare design ("hgx-h100-8:nodes=4:tiers=2")
};
// A plane that needs more tiers than exist ("fabric") is caused by the server count.
constexpr OptionPlace kPlaces[] = {
    {"nodes", "/cluster/count", "--nodes", "nodes"},
    {"fabric", "/cluster/count", "--nodes", "nodes"},
    {"fabric.tiers", "/cluster/fabric/tiers", "--tiers", "tiers"},
    {"fabric.link", "/cluster/fabric/link", "--fabric-link", "fabric-link"},
    {"fabric.oversubscription", "/cluster/fabric/oversubscription", "--oversubscription",
     "oversubscription"},
};
}  // namespace

InputError locate_cluster_error(const InputError& e, const std::string& source, bool from_file) {
  if (e.source() != "cluster") return e;
  for (const OptionPlace& p : kPlaces) {
    if (e.location() != p.option) continue;
    return from_file ? InputError(source, p.pointer, e.detail())
                     : InputError(p.flag, "", e.detail());
  }
  return InputError(source, e.location(), e.detail());
}

std::string design_key_of_flag(const std::string& flag) {
  for (const OptionPlace& p : kPlaces)
    if (flag == p.flag) return p.key;
  return "";
}

}  // namespace topoplan::detail
