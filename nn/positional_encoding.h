// positional_encoding.h — sinusoidal positions (Vaswani et al. 2017) as the paper's code uses them.
//
//   pe[p, 2i]   = sin(p · ω_i)     ω_i = 10000^(−2i / dim)
//   pe[p, 2i+1] = cos(p · ω_i)     (sin on even channels, cos on odd ones; p counts from 0)
//
// Two modes:
//   concat  x (B, N, D/2) → [x, pe(N, D/2)] (B, N, D): the token embedding has half the model
//           width and the other half is the encoding (the paper's image and copy experiments);
//   add     x (B, N, D) → x + pe(N, D).
// input_dim() tells the width the token embedding must have. The table is computed on the host in
// float64 from the geometry alone (no tensor data is read), cast, and copied to the input's device;
// O(N·D) per call, no parameters.
#pragma once

#include <string>

#include "nn/module.h"

namespace lintra::nn {

enum class PositionalMode { concat, add };
PositionalMode positional_mode_from_string(const std::string& name);  // "concat" | "add"
const char* positional_mode_name(PositionalMode m);

// Rows [start, start + n) of the (·, dim) table, on `device`.
Tensor sinusoidal_encoding(int64_t n, int64_t dim, int64_t start = 0, DType dtype = DType::f32,
                           Device device = Device::cpu);

class PositionalEncoding : public Module {
 public:
  PositionalEncoding(int64_t d_model, PositionalMode mode);

  int64_t d_model() const { return d_model_; }
  int64_t input_dim() const;  // D/2 (concat) or D (add)
  PositionalMode mode() const { return mode_; }

  // x (B, N, input_dim) holds positions start … start + N − 1 → (B, N, D).
  Var forward(const Var& x, int64_t start = 0) const;
  // One time step: x_t (B, input_dim) at `position` → (B, D).
  Var step(const Var& x_t, int64_t position) const;

  std::string type_name() const override { return "PositionalEncoding"; }
  std::string extra_repr() const override;

 private:
  int64_t d_model_;
  PositionalMode mode_;
};

}  // namespace lintra::nn
