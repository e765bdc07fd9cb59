#include "nn/positional_encoding.h"

#include <fmt/format.h>

#include <cmath>

#include "autograd/functional.h"

namespace lintra::nn {

PositionalMode positional_mode_from_string(const std::string& name) {
  if (name == "concat") return PositionalMode::concat;
  if (name == "add") return PositionalMode::add;
  LINTRA_FAIL("unknown positional encoding mode '{}': expected 'concat' or 'add'", name);
}

const char* positional_mode_name(PositionalMode m) { return m == PositionalMode::concat ? "concat" : "add"; }

Tensor sinusoidal_encoding(int64_t n, int64_t dim, int64_t start, DType dtype, Device device) {
  LINTRA_CHECK(n >= 0 && dim > 0 && start >= 0, "sinusoidal_encoding: need n >= 0, dim > 0, start >= 0, got {}, {}, {}",
               n, dim, start);
  Tensor pe = Tensor::empty({n, dim}, DType::f64);
  double* p = pe.data<double>();
  const double scale = -std::log(10000.0) / double(dim);
  for (int64_t c = 0; c < dim; c += 2) {
    const double omega = std::exp(double(c) * scale);
    for (int64_t r = 0; r < n; ++r) {
      const double angle = double(start + r) * omega;
      p[r * dim + c] = std::sin(angle);
      if (c + 1 < dim) p[r * dim + c + 1] = std::cos(angle);
    }
  }
  return pe.to(dtype).to(device);  // made on the host from the geometry alone, then copied
}

PositionalEncoding::PositionalEncoding(int64_t d_model, PositionalMode mode) : d_model_(d_model), mode_(mode) {
  LINTRA_CHECK(d_model_ > 0, "PositionalEncoding: d_model must be positive, got {}", d_model_);
  LINTRA_CHECK(mode_ != PositionalMode::concat || d_model_ % 2 == 0,
               "PositionalEncoding: concat mode needs an even d_model, got {}", d_model_);
}

int64_t PositionalEncoding::input_dim() const { return mode_ == PositionalMode::concat ? d_model_ / 2 : d_model_; }

Var PositionalEncoding::forward(const Var& x, int64_t start) const {
  LINTRA_CHECK(x.dim() == 3 && x.size(2) == input_dim(),
               "PositionalEncoding({}, {}): input must be (B, N, {}), got {}", d_model_, positional_mode_name(mode_),
               input_dim(), shape_str(x.shape()));
  const int64_t B = x.size(0), N = x.size(1);
  const int64_t pe_dim = mode_ == PositionalMode::concat ? d_model_ - input_dim() : d_model_;
  Tensor pe = sinusoidal_encoding(N, pe_dim, start, x.dtype(), x.data().device()).unsqueeze(0);  // (1, N, pe_dim)
  if (mode_ == PositionalMode::add) return add(x, Var(pe));
  return cat({x, Var(pe.expand({B, N, pe_dim}))}, 2);
}

Var PositionalEncoding::step(const Var& x_t, int64_t position) const {
  LINTRA_CHECK(x_t.dim() == 2 && x_t.size(1) == input_dim(), "PositionalEncoding::step: input must be (B, {}), got {}",
               input_dim(), shape_str(x_t.shape()));
  return squeeze(forward(unsqueeze(x_t, 1), position), 1);
}

std::string PositionalEncoding::extra_repr() const {
  return fmt::format("d_model={}, mode={}", d_model_, positional_mode_name(mode_));
}

}  // namespace lintra::nn
