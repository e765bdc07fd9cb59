#include "nn/attention/masks.h"

#include <fmt/format.h>

#include <limits>

#include "core/ops.h"

namespace lintra::nn {

namespace {

// 1 → 0, 0 → −inf
Tensor to_additive(const Tensor& bool_matrix, DType dtype) {
  return ops::where(bool_matrix, Tensor::scalar(0.0, dtype),
                    Tensor::scalar(-std::numeric_limits<double>::infinity(), dtype));
}

}  // namespace

Tensor FullMask::bool_matrix() const { return Tensor::ones({n_, s_}, kBool); }

LengthMask::LengthMask(Tensor lengths, int64_t max_len) : max_len_(max_len) {
  LINTRA_CHECK(lengths.defined() && lengths.dtype() == DType::i64 && lengths.dim() == 1,
               "LengthMask: lengths must be int64 of shape (B), got {}",
               lengths.defined() ? lengths.describe() : "undefined");
  lengths_ = lengths.contiguous();
  const int64_t* p = lengths_.data<int64_t>();
  for (int64_t b = 0; b < lengths_.numel(); ++b)
    LINTRA_CHECK(p[b] >= 0 && p[b] <= max_len_, "LengthMask: length {} of sequence {} is outside [0, {}]", p[b], b,
                 max_len_);
}

bool LengthMask::all_full() const {
  const int64_t* p = lengths_.data<int64_t>();
  for (int64_t b = 0; b < lengths_.numel(); ++b)
    if (p[b] != max_len_) return false;
  return true;
}

Tensor LengthMask::bool_matrix() const {
  const int64_t B = batch(), S = max_len_;
  Tensor m = Tensor::empty({B, S}, kBool);
  uint8_t* out = m.data<uint8_t>();
  const int64_t* len = lengths_.data<int64_t>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s) out[b * S + s] = s < len[b] ? 1 : 0;
  return m;
}

Tensor LengthMask::float_matrix(DType dtype) const { return bool_matrix().to(dtype); }
Tensor LengthMask::additive_matrix(DType dtype) const { return to_additive(bool_matrix(), dtype); }

Tensor TriangularCausalMask::bool_matrix() const {
  Tensor m = Tensor::empty({n_, n_}, kBool);
  uint8_t* out = m.data<uint8_t>();
  for (int64_t i = 0; i < n_; ++i)
    for (int64_t j = 0; j < n_; ++j) out[i * n_ + j] = j <= i ? 1 : 0;
  return m;
}

Tensor TriangularCausalMask::float_matrix(DType dtype) const { return bool_matrix().to(dtype); }
Tensor TriangularCausalMask::additive_matrix(DType dtype) const { return to_additive(bool_matrix(), dtype); }

const char* attn_mask_name(AttnMaskKind k) { return k == AttnMaskKind::causal ? "causal mask" : "full mask"; }

std::string AttentionMasks::describe() const {
  return has_key_lengths() ? fmt::format("{} + key lengths", attn_mask_name(attn)) : attn_mask_name(attn);
}

Tensor AttentionMasks::allowed(int64_t B, int64_t N, int64_t S) const {
  LINTRA_CHECK(!is_causal() || N == S, "attention: the causal mask needs as many queries as keys, got N={} S={}", N,
               S);
  if (!is_causal() && !has_key_lengths()) return Tensor();
  if (!has_key_lengths()) return TriangularCausalMask(N).bool_matrix().view({1, 1, N, S});
  LINTRA_CHECK(key_lengths.dim() == 1 && key_lengths.size(0) == B,
               "attention: key lengths must have shape ({}), got {}", B, shape_str(key_lengths.shape()));
  Tensor lengths = LengthMask(key_lengths, S).bool_matrix();  // (B, S)
  if (!is_causal()) return lengths.view({B, 1, 1, S}).expand({B, 1, N, S}).contiguous();
  Tensor out = Tensor::empty({B, 1, N, S}, kBool);
  uint8_t* o = out.data<uint8_t>();
  const uint8_t* l = lengths.data<uint8_t>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < S; ++j) o[(b * N + i) * S + j] = (j <= i && l[b * S + j]) ? 1 : 0;
  return out;
}

}  // namespace lintra::nn
