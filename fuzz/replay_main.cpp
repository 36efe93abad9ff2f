// Replays files and directories of inputs through one fuzz target without libFuzzer, so that the
// regression corpus and the shipped seed files run under the ASan+UBSan build with GCC in CI.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
void replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string s = bytes.str();
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}
}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::vector<fs::path> files;
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 2;
    }
    for (const fs::path& f : files) replay(f), ++n;
  }
  std::printf("replayed %zu inputs\n", n);
  return n > 0 ? 0 : 2;
}
