// The field rules every request with a workload shares (model.hpp, "Field rules").
#include <cmath>
#include <cstdio>
#include <string>

#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {

std::string shown(double v) {  // "inf", "nan", "1e+19": the value as %g prints it
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// inf, NaN and counts past kMaxCount are refused before the range rule, which NaN would pass
// silently and inf would pass as "large".
void require_count(double v, const char* field, const char* unit) {
  if (!std::isfinite(v)) throw FieldError(field, "must be a finite number, got " + shown(v));
  if (v > kMaxCount)
    throw FieldError(field, std::string("must be at most 2^53 ") + unit + ", got " + shown(v));
}

}  // namespace

void require_batch(double batch, bool zero_searches) {
  require_count(batch, "batch", "sequences");
  if (zero_searches && batch == 0) return;
  if (!(batch >= 1))
    throw FieldError("batch", std::string("must be at least 1 sequence") +
                                  (zero_searches ? " (or 0: searched)" : ""));
  // 2.5 sequences were planned as 3 without a word (issue 28's walk).
  if (batch != std::floor(batch))
    throw FieldError("batch", "must be a whole number of sequences, got " + shown(batch));
}

void require_tokens(double tokens, const char* field) {
  require_count(tokens, field, "tokens");
  if (!(tokens >= 1)) throw FieldError(field, "must be at least 1 token");
}

void require_context(double context) {
  require_count(context, "context", "tokens");
  if (!(context >= 0)) throw FieldError("context", "must not be negative");
}

namespace {
// A context past the model's own gave KV caches of positions the model cannot attend to, and
// at 1e15 tokens numbers no memory holds.
void require_within_max_context(double tokens, const ModelSpec& m, const char* field) {
  if (m.max_context > 0 && tokens > m.max_context) {
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", tokens);
    throw FieldError(field, std::string(text) + " tokens exceed the context of " + m.name + " (" +
                                std::to_string(m.max_context) + " tokens, max_context)");
  }
}
}  // namespace

void require_context_within(double context, const ModelSpec& m) {
  require_context(context);
  require_within_max_context(context, m, "context");
}

void require_prompt_within(double prompt, const ModelSpec& m, const char* field) {
  require_tokens(prompt, field);
  require_within_max_context(prompt, m, field);
}

void require_limit_ms(double ms, const char* field) {
  if (!std::isfinite(ms)) throw FieldError(field, "must be a finite number of ms (0: no limit)");
  if (ms < 0) throw FieldError(field, "must not be negative");
}

}  // namespace topoplan
