// nvidia-smi topo -m names: NV<count>, PIX/PXB/NODE/SYS.
#include <doctest/doctest.h>

#include <sstream>

#include "report/topo_nic_report.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;

TEST_CASE("smi_class: NVLink counts, NCCL's PHB is nvidia-smi's NODE") {
  CHECK(report::smi_class(PathClass::NVL, 18) == "NV18");
  CHECK(report::smi_class(PathClass::PHB, 0) == "NODE");
  CHECK(report::smi_class(PathClass::SYS, 0) == "SYS");
  CHECK(report::smi_class(PathClass::PIX, 0) == "PIX");
}

TEST_CASE("HGX H100: 18 NVLinks per GPU pair through NVSwitch, NICs PIX/NODE/SYS by PCIe tree") {
  // Each H100 SXM has 18 NVLink4 links, all to the NVSwitch fabric (reference/hardware.md), so
  // nvidia-smi shows NV18 for every pair. gpu0 and nic0 share a PCIe switch (PIX); nic2 hangs
  // off another switch of the same CPU (NODE); nic4 is on the other socket (SYS).
  Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CHECK(report::nvlink_count(t, t.gpus()[0], t.gpus()[1]) == 18);
  std::ostringstream os;
  report::print_smi_matrix(os, r, t.gpus());
  CHECK(os.str().find("gpu0     X  NV18") != std::string::npos);
  CHECK(os.str().find("PIX   PIX  NODE  NODE   SYS   SYS   SYS   SYS") != std::string::npos);
}
