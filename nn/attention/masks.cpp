#include "nn/attention/masks.h"

#include <fmt/format.h>

#include <limits>

#include "core/ops.h"

namespace lintra::nn {

namespace {

// 1 → 0, 0 → −inf
Tensor to_additive(const Tensor& bool_matrix, DType dtype) {
  const Device dev = bool_matrix.device();
  return ops::where(bool_matrix, Tensor::scalar(0.0, dtype, dev),
                    Tensor::scalar(-std::numeric_limits<double>::infinity(), dtype, dev));
}

}  // namespace

Tensor FullMask::bool_matrix() const { return Tensor::ones({n_, s_}, kBool, device_); }

LengthMask::LengthMask(Tensor lengths, int64_t max_len) : max_len_(max_len) {
  LINTRA_CHECK(lengths.defined() && lengths.dtype() == DType::i64 && lengths.dim() == 1,
               "LengthMask: lengths must be int64 of shape (B), got {}",
               lengths.defined() ? lengths.describe() : "undefined");
  lengths_ = lengths.contiguous();
  const ops::IndexRange r = ops::index_range(lengths_, 0, max_len_ + 1);
  LINTRA_CHECK(r.outside == 0, "LengthMask: length {} of sequence {} is outside [0, {}]", r.value, r.position, max_len_);
}

bool LengthMask::all_full() const { return ops::index_range(lengths_, max_len_, max_len_ + 1).outside == 0; }

// m[b, s] = s < lengths[b]
Tensor LengthMask::bool_matrix() const {
  const Tensor positions = Tensor::arange(max_len_, DType::i64, lengths_.device()).unsqueeze(0);  // (1, S)
  return ops::lt(positions, lengths_.unsqueeze(1));                                               // (B, S)
}

Tensor LengthMask::float_matrix(DType dtype) const { return bool_matrix().to(dtype); }
Tensor LengthMask::additive_matrix(DType dtype) const { return to_additive(bool_matrix(), dtype); }

// m[i, j] = j ≤ i
Tensor TriangularCausalMask::bool_matrix() const {
  const Tensor positions = Tensor::arange(n_, DType::i64, device_);
  return ops::le(positions.unsqueeze(0), positions.unsqueeze(1));
}

Tensor TriangularCausalMask::float_matrix(DType dtype) const { return bool_matrix().to(dtype); }
Tensor TriangularCausalMask::additive_matrix(DType dtype) const { return to_additive(bool_matrix(), dtype); }

const char* attn_mask_name(AttnMaskKind k) { return k == AttnMaskKind::causal ? "causal mask" : "full mask"; }

std::string AttentionMasks::describe() const {
  return has_key_lengths() ? fmt::format("{} + key lengths", attn_mask_name(attn)) : attn_mask_name(attn);
}

Tensor AttentionMasks::allowed(int64_t B, int64_t N, int64_t S, Device device) const {
  LINTRA_CHECK(!is_causal() || N == S, "attention: the causal mask needs as many queries as keys, got N={} S={}", N,
               S);
  if (!is_causal() && !has_key_lengths()) return Tensor();
  if (!has_key_lengths()) return TriangularCausalMask(N, device).bool_matrix().view({1, 1, N, S});
  LINTRA_CHECK(key_lengths.dim() == 1 && key_lengths.size(0) == B,
               "attention: key lengths must have shape ({}), got {}", B, shape_str(key_lengths.shape()));
  const Tensor lengths = LengthMask(key_lengths, S).bool_matrix().view({B, 1, 1, S});
  if (!is_causal()) return lengths.expand({B, 1, N, S}).contiguous();
  const Tensor causal = TriangularCausalMask(N, key_lengths.device()).bool_matrix().view({1, 1, N, S});
  return ops::mul(lengths, causal);  // (B, 1, N, S): both allow
}

}  // namespace lintra::nn
