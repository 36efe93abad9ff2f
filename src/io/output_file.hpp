// Every file topoplan writes (topo render -o, --render, --chart, --html, topo import/export -o,
// calibrate -o) goes through these two functions: the bytes go to a temporary file beside the
// target, every write and the close are checked, and the temporary file is renamed over the
// target at the end. A failure throws InputError(path, "", reason) (exit 2) and leaves the
// target as it was; concurrent writers of one path each rename a whole file. A target that
// exists and is not a regular file (/dev/null, /dev/full, a FIFO) is written in place, every
// write checked, never replaced. A directory, or a path in a missing folder, is refused.
// Private to src/.
#pragma once

#include <functional>
#include <string>

namespace topoplan::detail {

// Writes `text` to `path` as above.
void write_output_file(const std::string& path, const std::string& text);

// For writers that open the file themselves (Graphviz, PLplot): calls `write(temp)` with a
// temporary path that ends with the target's file name (so its extension is the target's),
// checks that it produced a non-empty regular file, then moves it into place as above.
void write_output_via(const std::string& path,
                      const std::function<void(const std::string& temp)>& write);

}  // namespace topoplan::detail
