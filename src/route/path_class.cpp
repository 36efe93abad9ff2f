// Names of path classes (NCCL's topoPathTypeStr order, src/graph/topo.cc).
#include "topoplan/route.hpp"

namespace topoplan {

std::string_view to_string(PathClass c) {
  switch (c) {
    case PathClass::LOC:
      return "LOC";
    case PathClass::NVL:
      return "NVL";
    case PathClass::NVB:
      return "NVB";
    case PathClass::C2C:
      return "C2C";
    case PathClass::PIX:
      return "PIX";
    case PathClass::PXB:
      return "PXB";
    case PathClass::P2C:
      return "P2C";
    case PathClass::PXN:
      return "PXN";
    case PathClass::PHB:
      return "PHB";
    case PathClass::SYS:
      return "SYS";
    case PathClass::NET:
      return "NET";
    case PathClass::DIS:
      return "DIS";
  }
  return "DIS";
}

}  // namespace topoplan
