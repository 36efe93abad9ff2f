// `nvidia-smi topo -m` → Topology (docs/importers.md). The matrix gives, per pair, the closest
// connection: NV# (a bundle of # NVLinks), PIX (one PCIe bridge: the same switch), PXB (several
// bridges: switches below a common switch), PHB/NODE (the same CPU), SYS (another CPU). PCIe
// structure is read from PIX and PXB pairs (GPU pairs joined by NVLink hide theirs, so it comes
// from the NICs), CPUs from the NUMA affinity column.
#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "io/import_common.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/topology_import.hpp"

namespace topoplan {
namespace {

struct Row {
  std::string name;                // "GPU3", "NIC1", "mlx5_0"
  std::vector<std::string> cells;  // one per column
  std::string cpu_affinity, numa;  // GPU rows only
  int line = 0;
};

struct Matrix {
  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::map<std::string, std::string> legend;  // NIC0 → mlx5_0
  std::string gpu_name;                       // from `nvidia-smi -L` lines, if present
  int header_line = 0;
};

bool is_device(const std::string& token) {
  auto numbered = [&](const char* prefix) {
    const std::size_t n = std::char_traits<char>::length(prefix);
    return token.size() > n && token.compare(0, n, prefix) == 0 &&
           std::all_of(token.begin() + static_cast<long>(n), token.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  return numbered("GPU") || numbered("NIC") || numbered("mlx5_");
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Matrix read_matrix(const std::string& text, const std::string& source) {
  Matrix m;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    // `nvidia-smi -L` lines ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)") name the GPU model.
    if (w[0] == "GPU" && w.size() > 2 && line.find(':') != std::string::npos) {
      const std::size_t from = line.find(':') + 1, to = line.find(" (UUID");
      std::string name = line.substr(from, to == std::string::npos ? to : to - from);
      name.erase(0, name.find_first_not_of(' '));
      if (m.gpu_name.empty()) m.gpu_name = name;
      continue;
    }
    if (m.columns.empty() && is_device(w[0])) {  // the header: device columns, then affinities
      for (const std::string& t : w) {
        if (!is_device(t)) break;
        m.columns.push_back(t);
      }
      m.header_line = n;
      continue;
    }
    if (w[0].size() > 1 && w[0].back() == ':' && is_device(w[0].substr(0, w[0].size() - 1)) &&
        w.size() == 2) {
      m.legend[w[0].substr(0, w[0].size() - 1)] = w[1];  // NIC legend
      continue;
    }
    if (m.columns.empty() || !is_device(w[0])) continue;  // legend text, blank, other output
    Row r;
    r.name = w[0];
    r.line = n;
    if (w.size() < m.columns.size() + 1)
      throw InputError(source, "line " + std::to_string(n),
                       "row " + r.name + " has " + std::to_string(w.size() - 1) +
                           " cells, the header " + std::to_string(m.columns.size()) +
                           " device columns");
    r.cells.assign(w.begin() + 1, w.begin() + 1 + static_cast<long>(m.columns.size()));
    if (w.size() > m.columns.size() + 1) r.cpu_affinity = w[m.columns.size() + 1];
    if (w.size() > m.columns.size() + 2) r.numa = w[m.columns.size() + 2];
    m.rows.push_back(r);
  }
  if (m.columns.empty())
    throw InputError(source, "line 1", "no matrix header (a line starting with GPU0) found");
  if (m.rows.size() != m.columns.size())
    throw InputError(source, "line " + std::to_string(m.header_line),
                     std::to_string(m.columns.size()) + " columns but " +
                         std::to_string(m.rows.size()) + " rows");
  return m;
}

// Union-find over device indices.
struct Groups {
  std::vector<int> parent;
  explicit Groups(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    return parent[static_cast<std::size_t>(x)] == x
               ? x
               : parent[static_cast<std::size_t>(x)] = find(parent[static_cast<std::size_t>(x)]);
  }
  void join(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
};

class Builder {
 public:
  Builder(const Matrix& m, const std::string& source, const ImportOptions& opt)
      : m_(m), source_(source), opt_(opt), n_(m.columns.size()) {}
  ImportedTopology run();

 private:
  const Matrix& m_;
  const std::string& source_;
  const ImportOptions& opt_;
  std::size_t n_;
  std::vector<std::string> notes_;
  Topology t_;
  std::vector<int> dev_;  // matrix index → device index

  const std::string& cell(std::size_t i, std::size_t j) const { return m_.rows[i].cells[j]; }
  bool is_gpu(std::size_t i) const { return m_.columns[i].rfind("GPU", 0) == 0; }
  [[noreturn]] void fail(std::size_t row, const std::string& what) const {
    throw InputError(source_, "line " + std::to_string(m_.rows[row].line), what);
  }
  int nvlinks(std::size_t i, std::size_t j) const;  // 0 when not NV#
  void check_cells();
  std::vector<int> numa_of_devices();
  void add_nvlinks(const std::string& gpu_model);
  struct Switches {
    Groups pix, pxb;                       // union-find of PIX and of PXB pairs
    std::map<int, int> leaf_of, upper_of;  // group representative → switch device
  };
  Switches make_switches();
  void add_pcie(const std::vector<int>& numa, const std::vector<int>& cpus,
                const std::string& gpu_model);
};

int Builder::nvlinks(std::size_t i, std::size_t j) const {
  const std::string& c = cell(i, j);
  return c.size() > 2 && c.compare(0, 2, "NV") == 0 ? std::stoi(c.substr(2)) : 0;
}

void Builder::check_cells() {
  static const std::set<std::string> kClasses{"X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC"};
  for (std::size_t i = 0; i < n_; ++i) {
    if (m_.rows[i].name != m_.columns[i])
      fail(i, "row " + m_.rows[i].name + " where the header has column " + m_.columns[i]);
    for (std::size_t j = 0; j < n_; ++j) {
      const std::string& c = cell(i, j);
      const bool nv = c.size() > 2 && c.size() <= 5 && c.compare(0, 2, "NV") == 0 &&
                      c.find_first_not_of("0123456789", 2) == std::string::npos;
      if (!nv && !kClasses.count(c))
        fail(i, "unknown connection '" + c + "' in column " + m_.columns[j] +
                    " (expected X, NV#, PIX, PXB, PHB, NODE or SYS)");
      if ((i == j) != (c == "X"))
        fail(i, "'X' must be on the diagonal only (column " + m_.columns[j] + ")");
    }
  }
  for (std::size_t i = 0; i < n_; ++i)  // after every cell is known to be a connection class
    for (std::size_t j = 0; j < n_; ++j) {
      const std::string& c = cell(i, j);
      if (c != cell(j, i))
        fail(i, m_.columns[i] + "-" + m_.columns[j] + " is " + c + " but " + m_.columns[j] + "-" +
                    m_.columns[i] + " is " + cell(j, i));
    }
}

// NUMA node per device: the GPU's NUMA affinity column, else CPU affinity groups, else one CPU;
// a NIC takes the NUMA node of a GPU it is not SYS to.
std::vector<int> Builder::numa_of_devices() {
  std::vector<int> numa(n_, -1);
  std::map<std::string, int> by_affinity;
  for (std::size_t i = 0; i < n_; ++i) {
    if (!is_gpu(i)) continue;
    const Row& r = m_.rows[i];
    if (!r.numa.empty() && r.numa.find_first_not_of("0123456789") == std::string::npos) {
      // Checked before stoi: a 10-digit NUMA id threw std::out_of_range (found by fuzz_nvidia_smi).
      if (r.numa.size() > 4)
        fail(i, "NUMA affinity '" + (r.numa.size() > 12 ? r.numa.substr(0, 12) + "..." : r.numa) +
                    "' of " + m_.columns[i] + " is not a NUMA node number (0 to 9999)");
      numa[i] = std::stoi(r.numa);
    } else if (!r.cpu_affinity.empty() && r.cpu_affinity != "N/A") {
      numa[i] =
          by_affinity.emplace(r.cpu_affinity, static_cast<int>(by_affinity.size())).first->second;
    }
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (numa[i] >= 0) continue;
    for (std::size_t j = 0; j < n_ && numa[i] < 0; ++j)
      if (numa[j] >= 0 && cell(i, j) != "SYS" && cell(i, j) != "SOC") numa[i] = numa[j];
    if (numa[i] < 0) {
      notes_.push_back(source_ + ": line " + std::to_string(m_.rows[i].line) +
                       ": no NUMA affinity for " + m_.columns[i] + "; put on the first CPU");
      numa[i] = 0;
    }
  }
  return numa;
}

// NV# on every GPU pair with more links in total than one GPU has means an NVSwitch system
// (H100 NV18 to 7 peers = 126 > 18); otherwise the NV# are direct bundles (4-GPU NV6 mesh).
void Builder::add_nvlinks(const std::string& gpu_model) {
  const GpuSpec& spec = Catalog::builtin().gpu(gpu_model);
  std::vector<std::size_t> gpus;
  for (std::size_t i = 0; i < n_; ++i)
    if (is_gpu(i)) gpus.push_back(i);
  int most = 0, widest = 0;
  for (std::size_t i : gpus) {
    int total = 0;
    for (std::size_t j : gpus) total += i == j ? 0 : nvlinks(i, j);
    most = std::max(most, total);
    for (std::size_t j : gpus) widest = std::max(widest, i == j ? 0 : nvlinks(i, j));
  }
  if (most == 0) return;
  if (spec.nvlink_type.empty())
    fail(gpus.front(), "NV# links on a " + spec.name + ", which has no NVLink in the catalog");
  if (most > spec.nvlink_count) {
    const int sw = detail::add_server_device(t_, DeviceType::NvSwitch, "nvswitch", "NVSwitch");
    for (std::size_t i : gpus) detail::add_catalog_link(t_, dev_[i], sw, spec.nvlink_type, widest);
    return;
  }
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b)
      if (const int k = nvlinks(gpus[a], gpus[b]))
        detail::add_catalog_link(t_, dev_[gpus[a]], dev_[gpus[b]], spec.nvlink_type, k);
}

// PIX pairs share a switch; switches (or lone devices) joined by PXB hang off a common switch.
Builder::Switches Builder::make_switches() {
  Switches sw{Groups(n_), Groups(n_), {}, {}};
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j) {
      if (cell(i, j) == "PIX") sw.pix.join(static_cast<int>(i), static_cast<int>(j));
      if (cell(i, j) == "PXB") sw.pxb.join(static_cast<int>(i), static_cast<int>(j));
    }
  std::map<int, int> members;  // PIX representative → devices in the group
  for (std::size_t i = 0; i < n_; ++i) ++members[sw.pix.find(static_cast<int>(i))];
  std::map<int, std::set<int>> leaves;  // PXB component → the PIX groups in it
  for (std::size_t i = 0; i < n_; ++i)
    leaves[sw.pxb.find(static_cast<int>(i))].insert(sw.pix.find(static_cast<int>(i)));
  int k = 0;
  auto new_switch = [&] {
    return detail::add_server_device(t_, DeviceType::PcieSwitch, "psw" + std::to_string(k++),
                                     "PCIe switch");
  };
  for (std::size_t i = 0; i < n_; ++i) {
    const int leaf = sw.pix.find(static_cast<int>(i));
    if (members[leaf] > 1 && !sw.leaf_of.count(leaf)) sw.leaf_of[leaf] = new_switch();
  }
  for (std::size_t i = 0; i < n_; ++i) {  // a common switch above several PIX groups
    const int up = sw.pxb.find(static_cast<int>(i));
    if (leaves[up].size() > 1 && !sw.upper_of.count(up)) sw.upper_of[up] = new_switch();
  }
  return sw;
}

// Everything hangs off its leaf switch, else its upper switch, else its NUMA node's CPU.
void Builder::add_pcie(const std::vector<int>& numa, const std::vector<int>& cpus,
                       const std::string& gpu_model) {
  const Catalog& cat = Catalog::builtin();
  Switches sw = make_switches();
  Groups &pix = sw.pix, &pxb = sw.pxb;
  std::map<int, int>&leaf_of = sw.leaf_of, &upper_of = sw.upper_of;
  // NICs and CPUs after the switches: the device order of the built-in servers.
  for (std::size_t i = 0; i < n_; ++i)
    if (!is_gpu(i))
      dev_[i] = detail::add_server_device(
          t_, DeviceType::Nic, "nic" + std::to_string(t_.nics_of_node(0).size()), opt_.nic_model);
  std::vector<int> cpu_dev;
  for (int c : cpus)
    cpu_dev.push_back(detail::add_server_device(t_, DeviceType::Cpu, "cpu" + std::to_string(c),
                                                "CPU (NUMA " + std::to_string(c) + ")"));
  auto cpu_of = [&](std::size_t i) {
    return cpu_dev[static_cast<std::size_t>(std::find(cpus.begin(), cpus.end(), numa[i]) -
                                            cpus.begin())];
  };
  const GpuSpec& gpu = cat.gpu(gpu_model);
  const NicSpec* nic = opt_.nic_model.empty() ? nullptr : &cat.nic(opt_.nic_model);
  std::map<int, std::string> fastest;  // switch device → fastest PCIe type below it
  auto attach = [&](int device, int parent, const std::string& type, int lanes) {
    detail::add_catalog_link(t_, device, parent, type, lanes);
    if (detail::pcie_rate_of(type) > detail::pcie_rate_of(fastest[parent])) fastest[parent] = type;
  };
  auto parent_of = [&](std::size_t i) {
    const int leaf = pix.find(static_cast<int>(i)), up = pxb.find(static_cast<int>(i));
    if (leaf_of.count(leaf)) return leaf_of[leaf];
    return upper_of.count(up) ? upper_of[up] : cpu_of(i);
  };
  for (bool gpus : {true, false})
    for (std::size_t i = 0; i < n_; ++i)
      if (is_gpu(i) == gpus)
        attach(dev_[i], parent_of(i), gpus || !nic ? gpu.pcie_type : nic->pcie_type,
               gpus ? gpu.pcie_lanes : 16);
  if (!nic && n_ > t_.gpus().size())
    notes_.push_back(source_ + ": NIC model and host link not in nvidia-smi output: " +
                     gpu.pcie_type + " x16 assumed, model left empty (pass --nic MODEL)");
  std::set<int> done;
  for (std::size_t i = 0; i < n_; ++i) {  // switches upward, leaves before upper switches
    const int leaf = pix.find(static_cast<int>(i)), up = pxb.find(static_cast<int>(i));
    if (leaf_of.count(leaf) && done.insert(leaf_of[leaf]).second)
      attach(leaf_of[leaf], upper_of.count(up) ? upper_of[up] : cpu_of(i), fastest[leaf_of[leaf]],
             16);
  }
  for (std::size_t i = 0; i < n_; ++i) {
    const int up = pxb.find(static_cast<int>(i));
    if (upper_of.count(up) && done.insert(upper_of[up]).second)
      attach(upper_of[up], cpu_of(i), fastest[upper_of[up]], 16);
  }
}

ImportedTopology Builder::run() {
  check_cells();
  const std::string gpu_model = !opt_.gpu_model.empty() ? opt_.gpu_model : m_.gpu_name;
  if (gpu_model.empty())
    throw InputError(source_, "line " + std::to_string(m_.header_line),
                     "nvidia-smi topo -m does not name the GPU model; pass --gpu MODEL or put the "
                     "`nvidia-smi -L` lines before the matrix");
  const std::string model = Catalog::builtin().gpu(gpu_model).name;
  const std::vector<int> numa = numa_of_devices();
  std::vector<int> cpus(numa.begin(), numa.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.size() > static_cast<std::size_t>(limits::kMaxImportCpus)) {
    const int first_over = cpus[static_cast<std::size_t>(limits::kMaxImportCpus)];
    fail(static_cast<std::size_t>(std::find(numa.begin(), numa.end(), first_over) - numa.begin()),
         "more than " + std::to_string(limits::kMaxImportCpus) +
             " NUMA nodes (CPUs) in one server: every pair would be linked");
  }
  t_.name = detail::imported_name(opt_.name, source_);
  t_.description = detail::imported_description("nvidia-smi topo -m", source_);
  for (const auto& [nic, name] : m_.legend)
    t_.description += (nic == m_.legend.begin()->first ? "; " : ", ") + nic + " = " + name;
  dev_.assign(n_, -1);
  int g = 0;
  for (std::size_t i = 0; i < n_; ++i)
    if (is_gpu(i))
      dev_[i] = detail::add_server_device(t_, DeviceType::Gpu, "gpu" + std::to_string(g++), model);
  add_nvlinks(model);
  add_pcie(numa, cpus, model);
  std::vector<int> cpu_devices;
  for (std::size_t d = 0; d < t_.device_count(); ++d)
    if (t_.device(static_cast<int>(d)).type == DeviceType::Cpu)
      cpu_devices.push_back(static_cast<int>(d));
  if (cpu_devices.size() > 1) {
    notes_.push_back(
        source_ +
        ": nvidia-smi does not name the CPU: inter-socket link assumed Intel UPI (upi, 22 GB/s)");
    detail::connect_cpus(t_, cpu_devices, detail::cpu_for("", "", -1, -1));
  }
  return {std::move(t_), std::move(notes_)};
}

}  // namespace

ImportedTopology import_nvidia_smi_topo(const std::string& text, const std::string& source,
                                        const ImportOptions& options) {
  const Matrix m = read_matrix(text, source);
  return Builder(m, source, options).run();
}

}  // namespace topoplan
