// Resource bounds on every input, checked before anything is allocated (docs/limits.md says why
// each is large enough for the biggest real system: a 100,000-GPU cluster, a 1,000-layer model).
// Past a bound the input is refused with an InputError (exit 2) naming the file and JSON pointer,
// never left to end as std::bad_alloc, the OOM killer, a stack overflow or a hang.
#pragma once

#include <cstddef>

namespace topoplan::limits {

// Bytes read from one input file. A 16,384-server HGX H100 cluster (131,072 GPUs) written out
// explicitly, one JSON entry per device and link, is 88 MB; nlohmann's document of it takes
// ~0.8 GB, so 256 MiB keeps the worst accepted file near 2.5 GB of memory (docs/limits.md).
inline constexpr std::size_t kMaxFileBytes = std::size_t{256} << 20;

// Nesting depth of a JSON document (arrays and objects). Every format topoplan reads nests at
// most 4 deep (a Hugging Face quantization_config inside the config); nlohmann's parser and
// destructor recurse once per level, so 100,000 levels overflow the stack.
inline constexpr int kMaxJsonDepth = 64;

// GPUs in one topology (a file, a cluster file or --nodes): 131,072 = 2^17 covers a
// 100,000-GPU cluster; docs/limits.md has the measured time of each command at this size.
inline constexpr std::size_t kMaxGpus = std::size_t{1} << 17;

// Devices (GPUs, CPUs, PCIe switches, NICs, network switches) in one topology: 16,384 HGX
// H100 servers with their rail-optimized fabric are 387,072 devices (measured, docs/limits.md).
inline constexpr std::size_t kMaxDevices = std::size_t{1} << 20;

// Links in one topology: the same cluster has 770,048.
inline constexpr std::size_t kMaxLinks = std::size_t{1} << 22;

// Characters in one device id (after range expansion): ids are names such as "n12/gpu3".
inline constexpr std::size_t kMaxIdLength = 256;

// Bytes of one description (topology, cluster, model): the longest shipped is 403; 64 KiB is a
// page of prose. Past it a file is refused, so no output carries megabytes of one string.
inline constexpr std::size_t kMaxDescriptionBytes = std::size_t{1} << 16;

// Layers of one model: the deepest published LLMs have 126 (Llama 3.1 405B) and 61 (DeepSeek-V3)
// layers; 100,000 leaves three orders of magnitude and still answers in seconds.
inline constexpr int kMaxModelLayers = 100'000;

// Routed experts of one MoE layer: the most in a published model is Kimi K2's 384
// (models/kimi-k2.json); 65,536 leaves two orders of magnitude.
inline constexpr int kMaxExperts = 1 << 16;

// Widths of one model, so that every size the model and planner layers derive from them stays
// far inside a 32-bit int (3 x intermediate, (heads + 2 kv_heads) x head_dim; a model with every
// size at 10^9 overflowed int in the planner's workspace estimate) and every answer is in
// plausible units. The widest published models: hidden 20,480 (Megatron-Turing NLG 530B),
// intermediate 73,728 (PaLM 540B), 128 attention heads (Llama 3.1 405B, DeepSeek-V3), head_dim
// 256 (Gemma), vocabulary 262,144 (Gemma 3). Each bound leaves 6x or more. The scale test at
// every bound at once runs under UBSan (scripts/hostile-inputs.sh, case widths_at_bounds).
inline constexpr int kMaxModelWidth = 1 << 17;  // hidden, head_dim, MLA ranks and head dims
inline constexpr int kMaxFfnWidth = 1 << 19;    // dense, expert and shared intermediate sizes
inline constexpr int kMaxHeads = 1 << 12;       // attention and KV heads
inline constexpr int kMaxVocab = 1 << 24;

// Latency of one link in microseconds: network links are ~1-5 us, the slowest path topoplan
// models (PCIe through a CPU) is ~2 us; 1 s is a unit typo, not a link (and 1e308 overflows the
// sum along a path).
inline constexpr double kMaxLinkLatency_us = 1e6;

// Bandwidth of one link bundle, GB/s per direction: the widest in the catalog is a GB200 GPU's
// 18 NVLink5 links at 900 GB/s (topologies/catalog/links.json); 10^6 GB/s is a unit typo.
inline constexpr double kMaxLinkGBps = 1e6;

// Rank pairs of one direct collective (all-to-all: one flow per ordered pair, an n x n traffic
// matrix): 4096 ranks. The widest expert-parallel groups deployed are a few hundred GPUs
// (DeepSeek's EP320 decode); an all-to-all over all 20,000 GPUs of one domain was 112 s, 15.6 GB.
inline constexpr std::size_t kMaxDirectPairs = std::size_t{1} << 24;

// NCCL topology XML (topo import nccl-xml, read with libxml2): element nesting, attributes on one
// element, elements in one file. NCCL's dumps nest 6-8 deep (system/cpu/pci/pci/gpu/nvlink), the
// widest element (<pci>) has 9 attributes, and an 8-GPU HGX dump has ~200 elements; a GB200
// NVL72 tray fewer. libxml2 2.9 checks duplicate attributes pairwise (200,000 attributes on one
// element took 9 minutes), so attributes are counted before libxml2 sees the text.
inline constexpr int kMaxXmlDepth = 128;
inline constexpr int kMaxXmlAttributes = 256;
inline constexpr std::size_t kMaxXmlElements = 16'384;

// CPU sockets / NUMA nodes of one imported server (NCCL XML <cpu>, nvidia-smi NUMA affinity):
// every pair is linked, so 3,000 CPUs were 4.5 million links. The largest servers have 8 sockets
// and 32 NUMA nodes (8 x SNC4).
inline constexpr int kMaxImportCpus = 64;

// Result rows of one nccl-tests log (text or -J JSON): a sweep from 8 B to 16 GiB by factors of 2
// is 32 rows, a fine sweep (-i) a few thousand. Each row is priced by the collective model, so a
// 1,000,000-row log (120 MB) took more than 20 s and ~3 GB; past the bound it is refused at the
// first row beyond it.
inline constexpr std::size_t kMaxNcclTestsRows = 16'384;

// Requests of one burst (plan --workload burst --requests): each wave of the schedule is a
// step of the simulation and an entry of the JSON answer; 10^9 requests took 3 s and 82 MB of
// JSON, 10^15 never ended. Published burst benchmarks send 100-3,000 requests. At the bound, 2
// requests per wave (Llama 3.1 70B, TP2 on H200 at 130,000 tokens) are 50,000 waves: 0.5 s and
// 8.2 MB of JSON.
inline constexpr double kMaxBurstRequests = 1e5;

// Entries of one error report and names checked for "did you mean": the suggestion is an edit
// distance per known name, so an unknown id in a file of 10^6 ids must not cost 10^6 of them
// per bad entry.
inline constexpr std::size_t kMaxReportedErrors = 20;
inline constexpr std::size_t kMaxSuggestionCandidates = 100'000;
inline constexpr std::size_t kMaxSuggestionNameLength = 128;

}  // namespace topoplan::limits
