// The InputError text of a call, for tests that compare whole messages (file, pointer, detail).
#pragma once

#include <string>

#include "topoplan/error.hpp"

namespace topoplan::test {

// What `f()` throws as an InputError, or "" when it does not throw.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace topoplan::test
