// masks.h — attention masks as types (after fast-transformers' masking.py).
//
//   FullMask(N, S)            every query sees every key
//   LengthMask(lengths, S)    key s of sequence b exists iff s < lengths[b]; lengths int64 (B)
//   TriangularCausalMask(N)   query i sees keys j ≤ i (inclusive: a position attends to itself)
//
// Each can give its matrix as booleans (u8, 1 = may attend), floats (1/0) or an additive mask
// (0 / −inf), on the device given (FullMask, TriangularCausalMask) or of the lengths (LengthMask), built
// by kernels (arange, comparisons), never by a host loop. Inner attentions receive them bundled as AttentionMasks:
//
//   AttentionMasks{attn: full | causal, key_lengths: optional int64 (B)}
//
// and each variant declares which ones it honours (inner_attention.h); asking a variant for a
// mask it cannot honour is an error, never a silent no-op.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace lintra::nn {

class FullMask {
 public:
  FullMask(int64_t n, int64_t s, Device device = Device::cpu) : n_(n), s_(s), device_(device) {}
  Tensor bool_matrix() const;  // (N, S) of ones

 private:
  int64_t n_, s_;
  Device device_;
};

class LengthMask {
 public:
  // lengths: int64 (B) with values in [0, max_len], on any device (the matrices are made there).
  LengthMask(Tensor lengths, int64_t max_len);
  const Tensor& lengths() const { return lengths_; }
  int64_t max_len() const { return max_len_; }
  int64_t batch() const { return lengths_.numel(); }
  bool all_full() const;                                   // every length equals max_len
  Tensor bool_matrix() const;                              // (B, S) u8
  Tensor float_matrix(DType dtype = DType::f32) const;     // (B, S) 1/0
  Tensor additive_matrix(DType dtype = DType::f32) const;  // (B, S) 0/−inf

 private:
  Tensor lengths_;  // contiguous int64 (B)
  int64_t max_len_;
};

class TriangularCausalMask {
 public:
  explicit TriangularCausalMask(int64_t n, Device device = Device::cpu) : n_(n), device_(device) {}
  Tensor bool_matrix() const;                              // (N, N) u8, lower triangle incl. diagonal
  Tensor float_matrix(DType dtype = DType::f32) const;     // (N, N) 1/0
  Tensor additive_matrix(DType dtype = DType::f32) const;  // (N, N) 0/−inf

 private:
  int64_t n_;
  Device device_;
};

enum class AttnMaskKind : uint8_t { full, causal };
const char* attn_mask_name(AttnMaskKind k);

struct AttentionMasks {
  AttnMaskKind attn = AttnMaskKind::full;
  Tensor key_lengths;  // undefined: every key exists; else int64 (B)

  static AttentionMasks full() { return {}; }
  static AttentionMasks causal() { return {AttnMaskKind::causal, Tensor()}; }
  AttentionMasks with_key_lengths(Tensor lengths) const { return {attn, std::move(lengths)}; }

  bool is_causal() const { return attn == AttnMaskKind::causal; }
  bool has_key_lengths() const { return key_lengths.defined(); }
  std::string describe() const;  // "causal mask + key lengths"

  // Which keys each query may see, combining both masks: u8 (B or 1, 1, N, S) broadcasting over
  // heads, on `device` (the key lengths' device when given), or an undefined tensor when nothing is
  // masked. Checks the mask shapes against (B, N, S).
  Tensor allowed(int64_t B, int64_t N, int64_t S, Device device = Device::cpu) const;
};

}  // namespace lintra::nn
