// lstm.cpp — the LSTM of lstm.h: per direction one linear over all frames for the input projection,
// then the fused recurrence lstm_recurrence (autograd/ops/lstm.cpp: per step h·W_hhᵀ, the four gates
// and the length mask, with its own backward through time).
#include "nn/lstm.h"

#include <cmath>

#include "autograd/functional.h"
#include "core/error.h"
#include "nn/init.h"

namespace lintra::nn {

LSTM::LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bidirectional, Generator& init_gen)
    : input_size_(input_size), hidden_(hidden_size), layers_(num_layers), bidirectional_(bidirectional) {
  LINTRA_CHECK(input_size > 0 && hidden_size > 0 && num_layers > 0,
               "LSTM: input_size, hidden_size and num_layers must be positive, got {}, {}, {}", input_size,
               hidden_size, num_layers);
  const double bound = 1.0 / std::sqrt(double(hidden_size));
  const int64_t D = bidirectional ? 2 : 1;
  for (int64_t l = 0; l < num_layers; ++l) {
    const int64_t in = l == 0 ? input_size : D * hidden_size;
    for (int64_t d = 0; d < D; ++d) {
      const std::string sfx = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      Direction dir;
      dir.w_ih = register_parameter("weight_ih" + sfx, Var(Tensor::empty({4 * hidden_size, in})));
      dir.w_hh = register_parameter("weight_hh" + sfx, Var(Tensor::empty({4 * hidden_size, hidden_size})));
      dir.b_ih = register_parameter("bias_ih" + sfx, Var(Tensor::empty({4 * hidden_size})));
      dir.b_hh = register_parameter("bias_hh" + sfx, Var(Tensor::empty({4 * hidden_size})));
      for (Var* v : {&dir.w_ih, &dir.w_hh, &dir.b_ih, &dir.b_hh}) init::uniform_(*v, init_gen, -bound, bound);
      dirs_.push_back(dir);
    }
  }
}

std::string LSTM::extra_repr() const {
  return fmt::format("input={}, hidden={}, layers={}{}", input_size_, hidden_, layers_,
                     bidirectional_ ? ", bidirectional" : "");
}

Tensor reverse_within_lengths_index(const Tensor& lengths, int64_t T) {
  const std::vector<int64_t> len = lengths.cpu().to_vector<int64_t>();  // a small copy to the host
  std::vector<int64_t> idx;
  idx.reserve(len.size() * size_t(T));
  for (int64_t Tb : len)
    for (int64_t t = 0; t < T; ++t) idx.push_back(t < Tb ? Tb - 1 - t : t);
  return Tensor::from_vector(idx, {int64_t(len.size()), T}, lengths.device());
}

Var LSTM::run(const Direction& d, const Var& x, const Tensor& lengths, bool reverse) const {
  return lstm_recurrence(linear(x, d.w_ih, d.b_ih), d.w_hh, d.b_hh, lengths, reverse);  // (B, T, 4H) → (B, T, H)
}

Var LSTM::forward(const Var& x, const Tensor& lengths) const {
  LINTRA_CHECK(x.defined() && x.dim() == 3 && x.size(2) == input_size_,
               "LSTM: input must be (B, T, {}), got {}", input_size_, x.defined() ? x.data().describe() : "undefined");
  const int64_t B = x.size(0), T = x.size(1);
  Tensor len = lengths.defined() ? lengths : Tensor::full({B}, double(T), DType::i64, x.data().device());
  LINTRA_CHECK(len.dtype() == DType::i64 && len.dim() == 1 && len.size(0) == B,
               "LSTM: lengths must be int64 ({}), got {}", B, len.describe());
  const ops::IndexRange r = ops::index_range(len, 0, T + 1);
  LINTRA_CHECK(r.outside == 0, "LSTM: lengths must be in [0, {}], got {}", T, r.value);
  Var out = x;
  const int64_t D = bidirectional_ ? 2 : 1;
  for (int64_t l = 0; l < layers_; ++l) {
    Var y = run(dirs_[size_t(l * D)], out, len, /*reverse=*/false);
    if (bidirectional_) y = cat({y, run(dirs_[size_t(l * D + 1)], out, len, /*reverse=*/true)}, 2);
    out = y;
  }
  return out;
}

}  // namespace lintra::nn
