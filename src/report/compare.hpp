// compare's types and entry points are public (include/topoplan/compare.hpp); report/ and cli/
// keep including them by this name.
#pragma once

#include "topoplan/compare.hpp"
