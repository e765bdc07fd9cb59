// test_cuda_kernels.cpp — the CUDA kernel table (core/cuda/kernel_table.cpp) against the CPU's, kernel by
// kernel, on the same inputs: every unary op (forward and backward) and every binary op in each dtype it
// is defined on, with broadcasting and non-contiguous operands; copy with casts into a view; fill; matmul
// (cuBLAS) with batches, broadcast batch dims and transposed operands; reduce, sum_squares, softmax and
// layer norm (forward and backward) on row lengths below and above a block's threads; uniform and normal
// fills from the same generator state; where; the optimizer updates, arange and the index range check;
// and a kernel without a CUDA
// version yet, which must throw naming itself. Every test skips (GTEST_SKIP) without a visible GPU and
// in a build without CUDA.
//
// Tolerances: the elementwise kernels apply the CPU's formulas, but nvcc may contract a·b + c into an
// FMA and its libm differs from glibc in the last bits, so results agree to a few ulps (relative 2e-6
// for float32, 1e-13 for float64; integer and comparison results exactly). matmul sums in another order:
// relative to Σ|a||b|, 1e-5 (float32, no TF32) and 1e-12 (float64).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/kernels.h"
#include "core/ops.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::error_of;

#define SKIP_WITHOUT_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device visible (or a build without CUDA)"

const Device kGpu = Device::cuda(0);

const kernels::KernelTable& gpu() { return kernels::on(kGpu); }
const kernels::KernelTable& host() { return kernels::on(Device::cpu); }

double tolerance(DType t) { return t == DType::f32 ? 2e-6 : (t == DType::f64 ? 1e-13 : 0.0); }

// a (CPU) against b (any device), element by element, relative to max(1, |a|); NaN matches NaN.
void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const std::vector<double> va = a.to(DType::f64).to_vector<double>(), vb = b.cpu().to(DType::f64).to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i) {
    if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
    if (va[i] == vb[i]) continue;
    ASSERT_LE(std::fabs(va[i] - vb[i]), tol * std::max(1.0, std::fabs(va[i])))
        << what << "[" << i << "]: " << va[i] << " on the CPU, " << vb[i] << " on " << kGpu.str();
  }
}

// Values in (0.1, 2.1) (every unary op's domain) as `dtype`; integers 0 … 9 for i64.
Tensor inputs(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor u = Tensor::uniform(shape, gen, 0.1, 2.1, DType::f64);
  if (dtype == DType::i64 || dtype == DType::u8) return ops::mul(u, 4.0).to(dtype);
  return u.to(dtype);
}

// Values in (1.1, 3.1) as `dtype` (no zero: a divisor); integers 4 … 12 for i64 and u8.
Tensor positive(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor u = Tensor::uniform(shape, gen, 1.1, 3.1, DType::f64);
  if (dtype == DType::i64 || dtype == DType::u8) return ops::mul(u, 4.0).to(dtype);
  return u.to(dtype);
}

TEST(CoreCudaKernels, EveryUnaryOpAndItsBackwardAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  op::for_each(op::UnaryOps{}, [&]<class Op>() {
    for (DType dtype : {DType::f32, DType::f64, DType::i64}) {
      if (dtype == DType::i64 && !op::on_int64<Op>) continue;
      const std::string what = std::string(Op::name) + " " + std::string(dtype_name(dtype));
      // A transposed (non-contiguous) input, and the op's parameters away from their special values.
      const Tensor x = inputs({7, 33}, dtype, 11).transpose(0, 1);
      const double a = std::string_view(Op::name) == "clamp" ? 0.5 : 1.5, b = 1.7;
      Tensor want = Tensor::empty(x.shape(), dtype), got = Tensor::empty(x.shape(), dtype, kGpu);
      const kernels::UnaryOp op = kernels::unary_op<Op>;
      host().unary(op, x, want, a, b);
      gpu().unary(op, x.to(kGpu), got, a, b);
      expect_close(want, got, tolerance(dtype), what);
      if constexpr (op::has_backward<Op>) {
        if (dtype == DType::i64) continue;
        const Tensor g = inputs(x.shape(), dtype, 12);
        Tensor dx_want = Tensor::empty(x.shape(), dtype), dx_got = Tensor::empty(x.shape(), dtype, kGpu);
        host().unary_backward(op, g, x, want, dx_want, a, b);
        gpu().unary_backward(op, g.to(kGpu), x.to(kGpu), got, dx_got, a, b);
        expect_close(dx_want, dx_got, tolerance(dtype), what + " backward");
      }
    }
  });
}

TEST(CoreCudaKernels, EveryBinaryOpAgreesWithTheCpuUnderBroadcasting) {
  SKIP_WITHOUT_GPU();
  op::for_each(op::BinaryOps{}, [&]<class Op>() {
    for (DType dtype : {DType::f32, DType::f64, DType::i64, DType::u8}) {
      if (!op::binary_defined_on<Op, double> || ((dtype == DType::i64 || dtype == DType::u8) &&
                                                 !op::on_integers<Op> && !op::is_comparison<Op>))
        continue;
      const std::string what = std::string(Op::name) + " " + std::string(dtype_name(dtype));
      // (5, 1, 9) against a transposed (4, 9): out (5, 4, 9); b has no zeros (div on integers).
      const Tensor a = inputs({5, 1, 9}, dtype, 21);
      const Tensor b = positive({9, 4}, dtype, 22).transpose(0, 1);
      const DType out_dtype = op::is_comparison<Op> ? DType::u8 : dtype;
      Tensor want = Tensor::empty({5, 4, 9}, out_dtype), got = Tensor::empty({5, 4, 9}, out_dtype, kGpu);
      host().binary(kernels::binary_op<Op>, a, b, want);
      gpu().binary(kernels::binary_op<Op>, a.to(kGpu), b.to(kGpu), got);
      expect_close(want, got, op::is_comparison<Op> ? 0.0 : tolerance(dtype), what);
    }
  });
}

TEST(CoreCudaKernels, CopyCastsIntoAViewAndFillFills) {
  SKIP_WITHOUT_GPU();
  const Tensor src = inputs({6, 8}, DType::f64, 31);
  for (DType to : {DType::f32, DType::f64, DType::i64, DType::u8}) {
    Tensor want = Tensor::zeros({8, 6}, to), got = Tensor::zeros({8, 6}, to, kGpu);
    Tensor want_view = want.transpose(0, 1), got_view = got.transpose(0, 1);  // writes through strides
    host().copy(src, want_view);
    gpu().copy(src.to(kGpu), got_view);
    expect_close(want, got, 0.0, std::string("copy to ") + std::string(dtype_name(to)));
  }
  Tensor filled = Tensor::empty({3, 5}, DType::f32, kGpu);
  gpu().fill(filled, 2.5);
  EXPECT_EQ(filled.cpu().to_vector<float>(), std::vector<float>(15, 2.5f));
}

TEST(CoreCudaKernels, MatmulThroughCublasAgreesWithTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    Shape a, b;
    bool transpose_a, transpose_b;
  };
  const std::vector<Case> cases = {
      {{17, 33}, {33, 9}, false, false},        // one product
      {{4, 17, 33}, {4, 33, 9}, false, false},  // a contiguous batch: one strided-batched call
      {{2, 3, 5, 7}, {3, 7, 6}, false, false},  // b broadcast over the first batch dim
      {{4, 33, 17}, {4, 9, 33}, true, true},    // both transposed views: op T
      {{1, 5}, {5, 1}, false, false},           // a dot product
  };
  for (DType dtype : {DType::f32, DType::f64}) {
    for (const Case& c : cases) {
      Tensor a = inputs(c.a, dtype, 41), b = inputs(c.b, dtype, 42);
      if (c.transpose_a) a = a.transpose(a.dim() - 2, a.dim() - 1);
      if (c.transpose_b) b = b.transpose(b.dim() - 2, b.dim() - 1);
      const Tensor want = ops::matmul(a, b);
      Tensor got = Tensor::empty(want.shape(), dtype, kGpu);
      gpu().matmul(a.to(kGpu), b.to(kGpu), got);
      const double K = double(a.size(a.dim() - 1));
      expect_close(want, got, (dtype == DType::f32 ? 1e-5 : 1e-12) * 4.0 * K, fmt::format("matmul {}", shape_str(c.a)));
    }
  }
}

// --- the row kernels (cuda/rows.cu) ------------------------------------------------------------------

// Normal values (mean 0.3, std 1.2) as a float dtype; integers 0 … 9 for i64 and u8.
Tensor normals(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor u = Tensor::normal(shape, gen, 0.3, 1.2, DType::f64);
  if (dtype == DType::i64 || dtype == DType::u8) return inputs(shape, dtype, seed);
  return u.to(dtype);
}

TEST(CoreCudaKernels, ReduceAgreesWithTheCpuOverEveryDimAndBothLaunchShapes) {
  SKIP_WITHOUT_GPU();
  // (3, 700, 5): dim 1 reduces long rows (a block per output), dims 0 and 2 short ones (a thread per
  // output); (20000, 3) over dim 1 has many outputs (a thread each); a transposed view has strides.
  struct Case {
    Shape shape;
    bool transposed;
  };
  const std::vector<Case> cases = {{{3, 700, 5}, false}, {{20000, 3}, false}, {{40, 300}, true}, {{1}, false}};
  for (DType dtype : {DType::f32, DType::f64, DType::i64, DType::u8}) {
    for (const Case& c : cases) {
      Tensor x = normals(c.shape, dtype, 51);
      if (c.transposed) x = x.transpose(0, 1);
      for (int64_t dim = 0; dim < x.dim(); ++dim) {
        for (kernels::ReduceOp op : {kernels::ReduceOp::sum, kernels::ReduceOp::max, kernels::ReduceOp::min}) {
          Shape out_shape = x.shape();
          out_shape[size_t(dim)] = 1;
          Tensor want = Tensor::empty(out_shape, dtype), got = Tensor::empty(out_shape, dtype, kGpu);
          host().reduce(op, x, dim, want);
          gpu().reduce(op, x.to(kGpu), dim, got);
          // Sums add in another order: relative to the row's length (the values are O(1)).
          const double tol = op == kernels::ReduceOp::sum ? tolerance(dtype) * 4.0 * double(x.size(dim)) : 0.0;
          expect_close(want, got, tol, fmt::format("reduce {} {} over dim {} of {}", int(op), dtype_name(dtype), dim,
                                                   shape_str(x.shape())));
        }
      }
    }
  }
}

TEST(CoreCudaKernels, MaxAndMinPropagateNanAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = normals({4, 600}, DType::f32, 52);
  x.slice(0, 2, 3).slice(1, 400, 401).fill_(std::nan(""));
  for (kernels::ReduceOp op : {kernels::ReduceOp::max, kernels::ReduceOp::min}) {
    Tensor want = Tensor::empty({4, 1}), got = Tensor::empty({4, 1}, DType::f32, kGpu);
    host().reduce(op, x, 1, want);
    gpu().reduce(op, x.to(kGpu), 1, got);
    expect_close(want, got, 0.0, "max/min with a NaN");
    EXPECT_TRUE(std::isnan(got.cpu().to_vector<float>()[2]));
  }
}

TEST(CoreCudaKernels, SumSquaresAgreesWithTheCpuAndIsDeterministic) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64}) {
    for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1234567)}) {
      const Tensor x = normals({n}, dtype, 53);
      Tensor want = Tensor::empty({}, DType::f64), got = Tensor::empty({}, DType::f64, kGpu),
             again = Tensor::empty({}, DType::f64, kGpu);
      host().sum_squares(x, want);
      const Tensor xg = x.to(kGpu);
      gpu().sum_squares(xg, got);
      gpu().sum_squares(xg, again);
      expect_close(want, got, 1e-12, fmt::format("sum_squares {} n={}", dtype_name(dtype), n));
      EXPECT_EQ(got.cpu().to_vector<double>(), again.cpu().to_vector<double>()) << "run to run";
    }
  }
}

TEST(CoreCudaKernels, SoftmaxAndLogSoftmaxForwardAndBackwardAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  // Rows of 7 (fewer than a block's threads), 784 (an MNIST attention row) and 3000; strided rows (the
  // first half of each row of a tensor twice as wide: one uniform row stride, as core/ops.cpp passes);
  // a fully masked (−inf) row.
  for (DType dtype : {DType::f32, DType::f64}) {
    const double tol = dtype == DType::f32 ? 1e-5 : 1e-12;
    for (const Shape& shape : {Shape{5, 7}, Shape{2, 3, 784}, Shape{4, 3000}}) {
      for (bool strided : {false, true}) {
        Shape wide = shape;
        wide.back() *= 2;
        const int64_t last = int64_t(shape.size()) - 1;
        Tensor x = strided ? normals(wide, dtype, 61).slice(last, 0, shape.back()) : normals(shape, dtype, 61);
        if (!strided) x.slice(0, 1, 2).fill_(-std::numeric_limits<double>::infinity());
        const Tensor dy = normals(shape, dtype, 62);
        for (bool log : {false, true}) {
          const std::string what = fmt::format("{}softmax {} {}{}", log ? "log_" : "", dtype_name(dtype),
                                               shape_str(shape), strided ? " strided rows" : "");
          Tensor want = Tensor::empty(shape, dtype), got = Tensor::empty(shape, dtype, kGpu);
          host().softmax_forward(x, log, want);
          gpu().softmax_forward(x.to(kGpu), log, got);
          expect_close(want, got, tol, what);
          if (!strided) continue;  // the backward from finite outputs only (a masked row's log is −inf)
          Tensor dx_want = Tensor::empty(shape, dtype), dx_got = Tensor::empty(shape, dtype, kGpu);
          host().softmax_backward(want, dy, log, dx_want);
          gpu().softmax_backward(want.to(kGpu), dy.to(kGpu), log, dx_got);
          expect_close(dx_want, dx_got, tol, what + " backward");
        }
      }
    }
  }
}

TEST(CoreCudaKernels, LayerNormForwardAndBackwardAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  // D = 5 (fewer than a block), 256 (the models' d_model) and 1000; R from 1 to 300 (above the 128
  // column chunks of the backward's dγ, dβ).
  for (DType dtype : {DType::f32, DType::f64}) {
    const double tol = dtype == DType::f32 ? 2e-5 : 1e-11;
    for (const Shape& shape : {Shape{3, 5}, Shape{300, 256}, Shape{2, 4, 1000}, Shape{1, 256}}) {
      const int64_t D = shape.back(), R = Tensor::empty(shape).numel() / D;
      const std::string what = fmt::format("layer_norm {} {}", dtype_name(dtype), shape_str(shape));
      const Tensor x = normals(shape, dtype, 71), gamma = normals({D}, dtype, 72), beta = normals({D}, dtype, 73);
      const Tensor dy = normals(shape, dtype, 74);
      Tensor y = Tensor::empty(shape, dtype), mean = Tensor::empty({R}, dtype), rstd = Tensor::empty({R}, dtype);
      Tensor yg = Tensor::empty(shape, dtype, kGpu), mg = Tensor::empty({R}, dtype, kGpu),
             rg = Tensor::empty({R}, dtype, kGpu);
      host().layer_norm_forward(x, gamma, beta, 1e-5, y, mean, rstd);
      gpu().layer_norm_forward(x.to(kGpu), gamma.to(kGpu), beta.to(kGpu), 1e-5, yg, mg, rg);
      expect_close(y, yg, tol, what + " y");
      expect_close(mean, mg, tol, what + " mean");
      expect_close(rstd, rg, tol, what + " rstd");
      Tensor dx = Tensor::empty(shape, dtype), dgamma = Tensor::empty({D}, dtype), dbeta = Tensor::empty({D}, dtype);
      Tensor dxg = Tensor::empty(shape, dtype, kGpu), dgg = Tensor::empty({D}, dtype, kGpu),
             dbg = Tensor::empty({D}, dtype, kGpu);
      host().layer_norm_backward(dy, x, mean, rstd, gamma, dx, dgamma, dbeta);
      gpu().layer_norm_backward(dy.to(kGpu), x.to(kGpu), mean.to(kGpu), rstd.to(kGpu), gamma.to(kGpu), dxg, dgg, dbg);
      expect_close(dx, dxg, tol, what + " dx");
      // dγ, dβ sum R rows (the CPU in the element type, the GPU in float64): relative to R.
      expect_close(dgamma, dgg, tol * double(R), what + " dgamma");
      expect_close(dbeta, dbg, tol * double(R), what + " dbeta");
    }
  }
}

TEST(CoreCudaKernels, WhereAgreesWithTheCpuUnderBroadcasting) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64, DType::i64}) {
    const Tensor cond = ops::gt(inputs({4, 1, 6}, DType::f64, 1), 1.1);  // u8 (4, 1, 6)
    const Tensor a = inputs({5, 6}, dtype, 2), b = inputs({4, 5, 1}, dtype, 3);
    Tensor want = Tensor::empty({4, 5, 6}, dtype), got = Tensor::empty({4, 5, 6}, dtype, kGpu);
    host().where(cond, a, b, want);
    gpu().where(cond.to(kGpu), a.to(kGpu), b.to(kGpu), got);
    expect_close(want, got, 0.0, "where");
  }
}

// The optimizer updates, two steps each (state carried), rectified and not; SGD with and without momentum.
TEST(CoreCudaKernels, OptimizerUpdatesAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64}) {
    const int64_t n = 70001;
    Tensor p = inputs({n}, dtype, 4), g = inputs({n}, dtype, 5), m = inputs({n}, dtype, 6), v = inputs({n}, dtype, 7);
    Tensor gp = p.to(kGpu), gg = g.to(kGpu), gm = m.to(kGpu), gv = v.to(kGpu);
    for (bool rectified : {true, false}) {
      host().adam_update(p, g, m, v, 0.9, 0.999, 1e-8, 0.99, 1e-3, rectified);
      gpu().adam_update(gp, gg, gm, gv, 0.9, 0.999, 1e-8, 0.99, 1e-3, rectified);
    }
    expect_close(p, gp, tolerance(dtype), "adam p");
    expect_close(m, gm, tolerance(dtype), "adam m");
    expect_close(v, gv, tolerance(dtype), "adam v");
    Tensor buf = Tensor::empty({n}, dtype), gbuf = Tensor::empty({n}, dtype, kGpu), none;
    for (bool first : {true, false}) {
      host().sgd_update(p, g, buf, 0.1, 0.9, 0.01, first);
      gpu().sgd_update(gp, gg, gbuf, 0.1, 0.9, 0.01, first);
    }
    host().sgd_update(p, g, none, 0.1, 0.0, 0.0, false);
    gpu().sgd_update(gp, gg, none, 0.1, 0.0, 0.0, false);
    expect_close(p, gp, tolerance(dtype), "sgd p");
    expect_close(buf, gbuf, tolerance(dtype), "sgd buf");
  }
}

TEST(CoreCudaKernels, ArangeAndIndexRangeAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64, DType::i64, DType::u8}) {
    Tensor want = Tensor::empty({200}, dtype), got = Tensor::empty({200}, dtype, kGpu);
    host().arange(want, 3, dtype == DType::u8 ? 1 : 0.5);
    gpu().arange(got, 3, dtype == DType::u8 ? 1 : 0.5);
    expect_close(want, got, tolerance(dtype), "arange");
  }
  // Nothing outside; several outside (the first is reported with its value); an empty index.
  const Tensor index = ops::mul(inputs({300, 7}, DType::f64, 8), 10.0).to(DType::i64);  // 1 … 21
  for (const auto& [low, high] : {std::pair<int64_t, int64_t>{0, 100}, {2, 20}, {5, 6}}) {
    Tensor want = Tensor::empty({3}, DType::i64), got = Tensor::empty({3}, DType::i64, kGpu);
    host().index_range(index, low, high, want);
    gpu().index_range(index.to(kGpu), low, high, got);
    expect_close(want, got, 0.0, "index_range");
  }
  Tensor got = Tensor::empty({3}, DType::i64, kGpu);
  gpu().index_range(Tensor::empty({0}, DType::i64, kGpu), 0, 1, got);
  EXPECT_EQ(got.cpu().to_vector<int64_t>(), (std::vector<int64_t>{0, -1, 0}));
}

// Random fills: the same generator state on both devices gives the same bits for uniforms (float32
// and float64, [0, 1) as dropout draws and another range), consumes the same blocks, and normals agree
// to a few float64 ulps (each device's sqrt/log/sin/cos). Sizes cover a partial last block.
TEST(CoreCudaKernels, UniformFillsAreBitIdenticalToTheCpuAndNormalsAgree) {
  SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64})
    for (const int64_t n : {int64_t(1), int64_t(7), int64_t(1) << 20 | 3})
      for (const auto& [lo, hi] : {std::pair{0.0, 1.0}, std::pair{-2.5, 3.0}}) {
        Generator cpu_gen(17, 3), gpu_gen(17, 3);
        cpu_gen.set_state({17, 3, (uint64_t(1) << 32) - 5});
        gpu_gen.set_state(cpu_gen.state());
        const Tensor a = Tensor::uniform({n}, cpu_gen, lo, hi, dtype);
        const Tensor b = Tensor::uniform({n}, gpu_gen, lo, hi, dtype, kGpu);
        EXPECT_EQ(cpu_gen.state(), gpu_gen.state());
        expect_close(a, b, 0.0, "uniform " + std::to_string(n));
        const Tensor na = Tensor::normal({n}, cpu_gen, 0.5, 2.0, dtype);
        const Tensor nb = Tensor::normal({n}, gpu_gen, 0.5, 2.0, dtype, kGpu);
        expect_close(na, nb, dtype == DType::f32 ? 1e-6 : 1e-14, "normal " + std::to_string(n));
      }
}

TEST(CoreCudaKernels, AKernelWithoutACudaVersionThrowsNamingIt) {
  SKIP_WITHOUT_GPU();
  const Tensor x = Tensor::zeros({2, 3}, DType::f32, kGpu);
  Tensor out = Tensor::empty({2, 3}, DType::f32, kGpu);
  EXPECT_HAS(error_of([&] { gpu().cumsum(x, 1, false, out); }), "kernel cumsum has no CUDA version yet");
}

}  // namespace
}  // namespace lintra
