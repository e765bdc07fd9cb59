// experiments/kernels/qkv_projection.cpp — is one (rows × d)·(d × 3d) projection faster than three
// (rows × d)·(d × d) ones? The attention layer's queries, keys and values are three Linear layers on
// the same input; PyTorch's in_proj (and most trainers) run them as one GEMM with the three weights
// stacked. This lab times the three products of each direction, through lintra's matmul (the
// panels of core/cpu/matmul.cpp, every thread), apart and fused, at the paper's MNIST (7,830 rows)
// and CIFAR-10 (12,284 rows) shapes, d = 256:
//   forward   3 × X·Wᵀ (rows × 256 · 256 × 256)         against X·W₃ᵀ (rows × 256 · 256 × 768)
//   dX        3 × dY·W accumulated (rows × 256 · 256 × 256) against dY₃·W₃ (rows × 768 · 768 × 256)
//   dW        3 × dYᵀ·X (256 × rows · rows × 256)        against dY₃ᵀ·X (768 × rows · rows × 256)
// A kernel lab in the llm.c dev/ style, outside the mainline. Run: build/experiments/kernels/qkv_projection
// under the machine lock, with the environment lintra's main sets (GOMP_SPINCOUNT=1000).
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>

#include "core/kernels.h"
#include "core/ops.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "core/threading.h"

namespace {

using Clock = std::chrono::steady_clock;
using lintra::Tensor;

// Best mean seconds of 5 calls over at least 1 s.
double seconds(const std::function<void()>& f) {
  f();
  double best = 1e30;
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < 1.0) {
    const auto t0 = Clock::now();
    for (int r = 0; r < 5; ++r) f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count() / 5);
  }
  return best;
}

void run_shape(const char* name, int64_t rows, int64_t d) {
  lintra::Generator gen(3);
  const Tensor x = Tensor::uniform({rows, d}, gen, -1, 1);
  const Tensor w3 = Tensor::uniform({3 * d, d}, gen, -1, 1);  // [Wq; Wk; Wv], (out, in)
  const Tensor dy3 = Tensor::uniform({rows, 3 * d}, gen, -1, 1);
  Tensor w[3], dy[3];
  for (int i = 0; i < 3; ++i) {
    w[i] = w3.slice(0, i * d, (i + 1) * d).contiguous();
    dy[i] = dy3.slice(1, i * d, (i + 1) * d).contiguous();
  }
  Tensor y = Tensor::empty({rows, d}), y3 = Tensor::empty({rows, 3 * d});
  Tensor dx = Tensor::empty({rows, d}), dw = Tensor::empty({d, d}), dw3 = Tensor::empty({3 * d, d});
  auto mm = [](const Tensor& a, const Tensor& b, Tensor& out, bool acc) { lintra::kernels::on(out).matmul(a, b, out, acc); };
  const double macs = 3.0 * double(rows) * double(d) * double(d);
  struct Row {
    const char* what;
    std::function<void()> apart, fused;
  };
  const Row rows_[] = {
      {"forward", [&] { for (auto& wi : w) mm(x, wi.transpose(0, 1), y, false); },
       [&] { mm(x, w3.transpose(0, 1), y3, false); }},
      {"dX", [&] { for (int i = 0; i < 3; ++i) mm(dy[i], w[i], dx, i > 0); }, [&] { mm(dy3, w3, dx, false); }},
      {"dW", [&] { for (auto& g : dy) mm(g.transpose(0, 1), x, dw, false); },
       [&] { mm(dy3.transpose(0, 1), x, dw3, false); }},
  };
  for (const Row& r : rows_) {
    const double a = seconds(r.apart), f = seconds(r.fused);
    fmt::print("{:<8} {:>6} {:<8} {:>9.3f} {:>9.3f} {:>8.1f} {:>8.1f} {:>6.2f}\n", name, rows, r.what, a * 1e3, f * 1e3,
               2 * macs / a / 1e9, 2 * macs / f / 1e9, a / f);
  }
}

}  // namespace

int main() {
  lintra::set_num_threads(0);
  fmt::print("qkv_projection lab — {} threads\n", lintra::num_threads());
  fmt::print("{:<8} {:>6} {:<8} {:>9} {:>9} {:>8} {:>8} {:>6}\n", "shape", "rows", "product", "apart ms", "fused ms",
             "GFLOP/s", "fused", "ratio");
  run_shape("mnist", 10 * 783, 256);
  run_shape("cifar10", 4 * 3071, 256);
  return 0;
}
