// The field rules every request with a workload shares (model.hpp, "Field rules").
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

void require_batch(double batch, bool zero_searches) {
  if (zero_searches && batch == 0) return;
  if (!(batch >= 1))
    throw FieldError("batch", std::string("must be at least 1 sequence") +
                                  (zero_searches ? " (or 0: searched)" : ""));
}

void require_tokens(double tokens, const char* field) {
  if (!(tokens >= 1)) throw FieldError(field, "must be at least 1 token");
}

void require_context(double context) {
  if (!(context >= 0)) throw FieldError("context", "must not be negative");
}

}  // namespace topoplan
