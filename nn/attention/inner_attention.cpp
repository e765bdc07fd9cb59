#include "nn/attention/inner_attention.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops.h"

namespace lintra::nn {

Var& RecurrentState::at(const std::string& name) {
  auto it = values.find(name);
  LINTRA_CHECK(it != values.end(), "RecurrentState: no value named '{}'", name);
  return it->second;
}

const Var& RecurrentState::at(const std::string& name) const {
  auto it = values.find(name);
  LINTRA_CHECK(it != values.end(), "RecurrentState: no value named '{}'", name);
  return it->second;
}

RecurrentState RecurrentState::clone() const {
  RecurrentState out;
  out.steps = steps;
  for (const auto& [name, v] : values) out.values[name] = Var(v.data().clone(), false);
  return out;
}

std::unique_ptr<RawRecurrentStep> InnerAttention::make_raw_step(const RawStepShape&) const { return nullptr; }

std::string InnerAttention::type_name() const { return fmt::format("InnerAttention[{}]", variant_); }

namespace {

std::string shapes(const Var& q, const Var& k, const Var& v) {
  return fmt::format("q {}, k {}, v {}", shape_str(q.shape()), shape_str(k.shape()), shape_str(v.shape()));
}

}  // namespace

Var InnerAttention::forward(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) {
  const std::string& name = variant_;
  LINTRA_CHECK(q.defined() && k.defined() && v.defined(), "attention '{}': undefined input", name);
  LINTRA_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
               "attention '{}': expected q (B, H, N, E), k (B, H, S, E), v (B, H, S, M), got {}", name,
               shapes(q, k, v));
  LINTRA_CHECK(q.size(0) == k.size(0) && k.size(0) == v.size(0) && q.size(1) == k.size(1) && k.size(1) == v.size(1),
               "attention '{}': batch and head dims differ: {}", name, shapes(q, k, v));
  LINTRA_CHECK(q.size(3) == k.size(3), "attention '{}': queries and keys must share the head dim E, got {}", name,
               shapes(q, k, v));
  LINTRA_CHECK(k.size(2) == v.size(2), "attention '{}': keys and values must have the same length S, got {}", name,
               shapes(q, k, v));
  LINTRA_CHECK(is_floating(q.dtype()) && q.dtype() == k.dtype() && k.dtype() == v.dtype(),
               "attention '{}': q, k, v must share one floating dtype, got {}, {}, {}", name, q.dtype(), k.dtype(),
               v.dtype());
  const MaskSupport ms = mask_support();
  const std::string hint = ms.hint.empty() ? "" : " (" + ms.hint + ")";
  LINTRA_CHECK(ms.cross_attention || q.size(2) == k.size(2),
               "attention '{}' needs as many queries as keys (no cross-attention), got N={} and S={}{}", name,
               q.size(2), k.size(2), hint);
  if (masks.is_causal()) {
    LINTRA_CHECK(ms.causal, "attention '{}' does not support the causal mask{}", name, hint);
    LINTRA_CHECK(q.size(2) == k.size(2),
                 "attention '{}': the causal mask needs as many queries as keys, got N={} and S={}", name, q.size(2),
                 k.size(2));
  } else {
    LINTRA_CHECK(ms.full, "attention '{}' does not support the full (non-causal) mask{}", name, hint);
  }
  if (masks.has_key_lengths()) {
    LINTRA_CHECK(ms.key_lengths, "attention '{}' does not support key lengths (a LengthMask){}", name, hint);
    const Tensor& len = masks.key_lengths;
    LINTRA_CHECK(len.dtype() == DType::i64 && len.dim() == 1 && len.size(0) == q.size(0),
                 "attention '{}': key lengths must be int64 of shape ({}), got {}", name, q.size(0), len.describe());
    const ops::IndexRange r = ops::index_range(len, 0, k.size(2) + 1);
    LINTRA_CHECK(r.outside == 0, "attention '{}': key length {} of sequence {} is outside [0, {}]", name, r.value,
                 r.position, k.size(2));
  }
  return attend(q, k, v, masks);
}

Var InnerAttention::step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state) {
  const std::string& name = variant_;
  LINTRA_CHECK(has_recurrent(), "attention '{}' has no recurrent form: step() is unavailable", name);
  LINTRA_CHECK(q_t.defined() && k_t.defined() && v_t.defined(), "attention '{}': undefined input to step()", name);
  LINTRA_CHECK(q_t.dim() == 3 && k_t.dim() == 3 && v_t.dim() == 3,
               "attention '{}': step() expects q_t (B, H, E), k_t (B, H, E), v_t (B, H, M), got {}", name,
               shapes(q_t, k_t, v_t));
  LINTRA_CHECK(q_t.size(0) == k_t.size(0) && k_t.size(0) == v_t.size(0) && q_t.size(1) == k_t.size(1) &&
                   k_t.size(1) == v_t.size(1),
               "attention '{}': step() batch and head dims differ: {}", name, shapes(q_t, k_t, v_t));
  LINTRA_CHECK(q_t.size(2) == k_t.size(2), "attention '{}': step() queries and keys must share E, got {}", name,
               shapes(q_t, k_t, v_t));
  LINTRA_CHECK(is_floating(q_t.dtype()) && q_t.dtype() == k_t.dtype() && k_t.dtype() == v_t.dtype(),
               "attention '{}': step() inputs must share one floating dtype", name);
  Var y = attend_step(q_t, k_t, v_t, state);
  state.steps += 1;
  return y;
}

Var InnerAttention::attend_step(const Var&, const Var&, const Var&, RecurrentState&) {
  LINTRA_FAIL("attention '{}' declares a recurrent form but does not implement attend_step()", variant_);
}

}  // namespace lintra::nn
