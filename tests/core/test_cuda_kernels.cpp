// test_cuda_kernels.cpp — the CUDA kernel table (core/cuda/kernel_table.cpp) against the CPU's, kernel by
// kernel, on the same inputs: every unary op (forward and backward) and every binary op in each dtype it is
// defined on, with broadcasting and non-contiguous operands; copy with casts into a view; fill; matmul
// (cuBLAS) with batches, broadcast batch dims and transposed operands; reduce, sum_squares, softmax and
// layer norm (forward and backward) on row lengths below and above a block's threads; the masked softmax,
// arg-max/min and cumsum; where; the index kernels; the optimizer updates, arange and the index range
// check; sort; reformer's round plan; the mixture-of-logistics sampler; CTC; the LSTM recurrence; the
// causal linear product and its backward; uniform and normal fills and dropout from the same generator
// state. Every test skips (GTEST_SKIP) without a visible GPU and in a build without CUDA.
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
      gpu().matmul(a.to(kGpu), b.to(kGpu), got, false);
      const double K = double(a.size(a.dim() - 1));
      expect_close(want, got, (dtype == DType::f32 ? 1e-5 : 1e-12) * 4.0 * K, fmt::format("matmul {}", shape_str(c.a)));
      // accumulate: out += a·b onto what out holds (cuBLAS's beta = 1)
      const Tensor base = inputs(want.shape(), dtype, 43);
      Tensor acc = base.to(kGpu);
      gpu().matmul(a.to(kGpu), b.to(kGpu), acc, true);
      expect_close(ops::add(want, base), acc, (dtype == DType::f32 ? 1e-5 : 1e-12) * 4.0 * K,
                   fmt::format("matmul accumulate {}", shape_str(c.a)));
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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
  LINTRA_SKIP_WITHOUT_GPU();
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

// The masked softmax (a causal mask broadcast over batch and heads, and one with an empty row), arg-max
// and arg-min with ties and a NaN, and cumsum both ways along every dim, against the CPU's.
TEST(CoreCudaKernels, MaskedSoftmaxArgReduceAndCumsumAgreeWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64}) {
    for (const int64_t S : {int64_t(5), int64_t(300)}) {
      const Tensor x = ops::mul(inputs({2, 3, S, S}, dtype, 31), 3.0);
      const Tensor pos = Tensor::arange(S, DType::f32);
      Tensor allowed = ops::le(pos.view({1, S}), pos.view({S, 1}));  // causal (S, S)
      allowed.select(0, 0).zero_();                                  // the first row allows nothing
      Tensor want = Tensor::empty(x.shape(), dtype), got = Tensor::empty(x.shape(), dtype, kGpu);
      host().masked_softmax_forward(x, allowed, want);
      gpu().masked_softmax_forward(x.to(kGpu), allowed.to(kGpu), got);
      expect_close(want, got, tolerance(dtype), "masked_softmax S " + std::to_string(S));
    }
  }
  for (DType dtype : {DType::f32, DType::f64, DType::i64}) {
    Tensor x = ops::mul(inputs({4, 7, 5}, dtype, 32), 2.0);  // integer-valued after the cast: ties
    if (dtype != DType::i64) x.select(0, 1).select(0, 3).fill_(NAN);
    for (int64_t dim : {0, 1, 2}) {
      Shape s = x.shape();
      s[size_t(dim)] = 1;
      for (bool is_max : {true, false}) {
        Tensor wv = Tensor::empty(s, dtype), wi = Tensor::empty(s, DType::i64);
        Tensor gv = Tensor::empty(s, dtype, kGpu), gi = Tensor::empty(s, DType::i64, kGpu);
        host().arg_reduce(is_max, x, dim, wv, wi);
        gpu().arg_reduce(is_max, x.to(kGpu), dim, gv, gi);
        expect_close(wv, gv, 0.0, "arg_reduce values");
        expect_close(wi, gi, 0.0, "arg_reduce indices");
      }
      for (bool reverse : {false, true}) {
        Tensor want = Tensor::empty(x.shape(), dtype), got = Tensor::empty(x.shape(), dtype, kGpu);
        host().cumsum(x, dim, reverse, want);  // the NaN propagates alike (expect_close matches NaN with NaN)
        gpu().cumsum(x.to(kGpu), dim, reverse, got);
        expect_close(want, got, tolerance(dtype), "cumsum dim " + std::to_string(dim));
      }
    }
  }
}

// sort (CUB) against the CPU's stable sort along each dim, both orders, with ties (stable order kept)
// and NaN (largest); reformer's round plan against the CPU's, causal and not, with a padded sequence.
TEST(CoreCudaKernels, SortAndLshPlanAgreeWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64, DType::i64}) {
    Tensor x = inputs({3, 40, 5}, dtype, 71);  // few distinct values: many ties
    if (dtype != DType::i64) x.select(0, 1).select(0, 7).fill_(NAN);
    for (int64_t dim : {0, 1, 2})
      for (bool descending : {false, true}) {
        Tensor wv = Tensor::empty(x.shape(), dtype), wi = Tensor::empty(x.shape(), DType::i64);
        Tensor gv = Tensor::empty(x.shape(), dtype, kGpu), gi = Tensor::empty(x.shape(), DType::i64, kGpu);
        host().sort(x, dim, descending, wv, wi);
        gpu().sort(x.to(kGpu), dim, descending, gv, gi);
        expect_close(wv, gv, 0.0, "sort values dim " + std::to_string(dim));
        expect_close(wi, gi, 0.0, "sort indices dim " + std::to_string(dim));
      }
  }
  Generator gen(72);
  const int64_t B = 2, H = 3, N = 37, C = 8, nc = (N + C - 1) / C;
  const Tensor buckets = ops::mul(Tensor::uniform({B * H, N}, gen, 0, 4, DType::f64), 1.0).to(DType::i64);
  const Tensor lengths = Tensor::from_vector(std::vector<int64_t>{37, 20}, {B});
  for (const bool causal : {false, true})
    for (const int64_t W : {C, 2 * C}) {
      auto run = [&](Device d) {
        Tensor qr = Tensor::empty({B * H * nc * C}, DType::i64, d), wr = Tensor::empty({B * H * nc * W}, DType::i64, d);
        Tensor sc = Tensor::empty({B * H * N}, DType::i64, d), add = Tensor::empty({B * H, nc, C, W}, DType::f32, d);
        Tensor ok = Tensor::empty({B * H, nc, C, 1}, DType::f32, d);
        kernels::on(d).lsh_plan(buckets.view({B, H, N}).to(d), lengths.to(d), causal, true, -1e5, qr, wr, sc, add, ok);
        return std::vector<Tensor>{qr, wr, sc, add, ok};
      };
      const std::vector<Tensor> want = run(Device::cpu), got = run(kGpu);
      for (size_t i = 0; i < want.size(); ++i) expect_close(want[i], got[i], 0.0, "lsh_plan output " + std::to_string(i));
    }
}

// index_select, gather, scatter_add and index_add against the CPU's, with repeated indices (the adds
// collide: atomics on the GPU, so float sums to rounding), an index smaller than the input (gather,
// scatter_add) and every dtype each kernel takes on the GPU.
TEST(CoreCudaKernels, IndexKernelsAgreeWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  const Tensor rows = Tensor::from_vector(std::vector<int64_t>{3, 0, 3, 1, 4, 3}, {6});
  for (DType dtype : {DType::f32, DType::f64, DType::i64}) {
    const Tensor x = inputs({5, 4, 3}, dtype, 21);
    for (int64_t dim : {0, 2}) {
      const Tensor idx = dim == 0 ? rows : Tensor::from_vector(std::vector<int64_t>{0, 2, 2, 1, 0, 2}, {6});
      Shape s = x.shape();
      s[size_t(dim)] = 6;
      Tensor want = Tensor::empty(s, dtype), got = Tensor::empty(s, dtype, kGpu);
      host().index_select(x, dim, idx, want);
      gpu().index_select(x.to(kGpu), dim, idx.to(kGpu), got);
      expect_close(want, got, 0.0, "index_select dim " + std::to_string(dim));
      Tensor base = inputs(x.shape(), dtype, 22), gbase = base.to(kGpu);
      const Tensor src = inputs(s, dtype, 23);
      host().index_add(base, dim, idx, src);
      gpu().index_add(gbase, dim, idx.to(kGpu), src.to(kGpu));
      expect_close(base, gbase, tolerance(dtype), "index_add dim " + std::to_string(dim));
    }
    // gather / scatter_add along dim 1 with an index (5, 3, 2) into x (5, 4, 3); values 0 … 3, repeated.
    std::vector<int64_t> gv(30);
    for (size_t i = 0; i < gv.size(); ++i) gv[i] = int64_t((i * 7 + i / 4) % 4);
    const Tensor gi = Tensor::from_vector(gv, {5, 3, 2});
    Tensor want = Tensor::empty({5, 3, 2}, dtype), got = Tensor::empty({5, 3, 2}, dtype, kGpu);
    host().gather(x, 1, gi, want);
    gpu().gather(x.to(kGpu), 1, gi.to(kGpu), got);
    expect_close(want, got, 0.0, "gather");
    Tensor base = inputs({5, 4, 3}, dtype, 25), gbase = base.to(kGpu);
    const Tensor src = inputs({5, 3, 3}, dtype, 26);
    host().scatter_add(base, 1, gi, src);
    gpu().scatter_add(gbase, 1, gi.to(kGpu), src.to(kGpu));
    expect_close(base, gbase, tolerance(dtype), "scatter_add");
  }
}

// The mixture-of-logistics sampler on the same parameters and uniforms gives the CPU's levels (the
// same float64 formula; a level could differ only where the device's log lands a rounding boundary
// differently, which these inputs do not hit), and reports the first bad row and component.
TEST(CoreCudaKernels, SampleMolAgreesWithTheCpuAndReportsTheFirstBadParameter) {
  LINTRA_SKIP_WITHOUT_GPU();
  Generator gen(41);
  for (DType dtype : {DType::f32, DType::f64}) {
    const int64_t R = 700, K = 5;
    Tensor params = Tensor::uniform({R, 3 * K}, gen, -3, 3, dtype);
    const Tensor u = Tensor::uniform({R, K + 1}, gen, 0, 1, DType::f64);
    Tensor want = Tensor::empty({R}, DType::i64), wbad = Tensor::empty({2}, DType::i64);
    Tensor got = Tensor::empty({R}, DType::i64, kGpu), gbad = Tensor::empty({2}, DType::i64, kGpu);
    host().sample_mol(params, u, 256, want, wbad);
    gpu().sample_mol(params.to(kGpu), u.to(kGpu), 256, got, gbad);
    expect_close(want, got, 0.0, "sample_mol");
    EXPECT_EQ(gbad.cpu().to_vector<int64_t>(), (std::vector<int64_t>{-1, -1}));
    params.select(0, 9).select(0, 2 * K + 3).fill_(NAN);
    params.select(0, 400).select(0, 0).fill_(INFINITY);
    gpu().sample_mol(params.to(kGpu), u.to(kGpu), 256, got, gbad);
    EXPECT_EQ(gbad.cpu().to_vector<int64_t>(), (std::vector<int64_t>{9, 3}));
  }
}

// The LSTM recurrence (one direction) on the GPU against the CPU's: forward outputs, saved activations
// and states, and the backward's three gradients, with a short and an empty sequence, both directions.
TEST(CoreCudaKernels, LstmForwardAndBackwardAgreeWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64})
    for (const bool reverse : {false, true}) {
      const int64_t B = 3, T = 7, H = 20, G = 4 * H;
      const Tensor xw = inputs({B, T, G}, dtype, 51), w = ops::mul(inputs({G, H}, dtype, 52), 0.2);
      const Tensor bh = inputs({G}, dtype, 53), gh = inputs({B, T, H}, dtype, 54);
      const Tensor len = Tensor::from_vector(std::vector<int64_t>{7, 3, 0}, {3});
      auto run = [&](Device d) {
        const auto& k = kernels::on(d);
        Tensor h = Tensor::empty({B, T, H}, dtype, d), acts = Tensor::empty({T, B, G}, dtype, d);
        Tensor hs = Tensor::empty({T + 1, B, H}, dtype, d), cs = Tensor::empty({T + 1, B, H}, dtype, d);
        k.lstm_forward(xw.to(d), w.to(d), bh.to(d), len.to(d), reverse, h, acts, hs, cs);
        Tensor dxw = Tensor::empty({B, T, G}, dtype, d), dw = Tensor::empty({G, H}, dtype, d);
        Tensor db = Tensor::empty({G}, dtype, d);
        k.lstm_backward(gh.to(d), w.to(d), len.to(d), reverse, acts, hs, cs, dxw, dw, db);
        return std::vector<Tensor>{h, acts, hs, cs, dxw, dw, db};
      };
      const std::vector<Tensor> want = run(Device::cpu), got = run(kGpu);
      const char* names[] = {"h", "acts", "hs", "cs", "dxw", "dw_hh", "db_hh"};
      for (size_t i = 0; i < want.size(); ++i)
        expect_close(want[i], got[i], dtype == DType::f32 ? 1e-5 : 1e-12, std::string("lstm ") + names[i]);
    }
}

// CTC on the GPU against the CPU: losses, gradients and statuses, with sequences of different lengths,
// a repeated label, a label out of range (status 1) and too few frames (status 2).
TEST(CoreCudaKernels, CtcLossAgreesWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  Generator gen(61);
  for (DType dtype : {DType::f32, DType::f64}) {
    const int64_t B = 5, T = 40, C = 6, S = 4;
    const Tensor lp = ops::log_softmax(Tensor::uniform({B, T, C}, gen, -2, 2, dtype), -1);
    const Tensor targets =
        Tensor::from_vector(std::vector<int64_t>{1, 2, 2, 3, 5, 1, 0, 0, 4, 4, 4, 4, 1, 9, 2, 0, 3, 0, 0, 0}, {B, S});
    const Tensor in_len = Tensor::from_vector(std::vector<int64_t>{40, 17, 5, 30, 1}, {B});
    const Tensor tg_len = Tensor::from_vector(std::vector<int64_t>{4, 2, 4, 3, 1}, {B});
    Tensor nll = Tensor::empty({B}, dtype), grad = Tensor::empty({B, T, C}, dtype), st = Tensor::empty({B, 3}, DType::i64);
    Tensor gnll = Tensor::empty({B}, dtype, kGpu), ggrad = Tensor::empty({B, T, C}, dtype, kGpu);
    Tensor gst = Tensor::empty({B, 3}, DType::i64, kGpu);
    host().ctc_loss(lp, targets, in_len, tg_len, nll, grad, st);
    gpu().ctc_loss(lp.to(kGpu), targets.to(kGpu), in_len.to(kGpu), tg_len.to(kGpu), gnll, ggrad, gst);
    expect_close(st, gst, 0.0, "ctc status");
    expect_close(nll, gnll, tolerance(dtype) * 10, "ctc nll");
    expect_close(grad, ggrad, tolerance(dtype) * 10, "ctc grad");
  }
}

// The chunked causal product (cuda/causal_product.cu) and its backward against the CPU's: lengths on
// both sides of the 16/32/64-row chunks, heads with Dk ≠ Dc, a head-split (strided) input view, both
// float dtypes; heads too large for shared memory are refused with a message. Sums of N products:
// tolerance 1e-4 (float32) and 1e-11 (float64) relative to max(1, |value|).
TEST(CoreCudaKernels, CausalProductForwardAndBackwardAgreeWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64})
    for (const int64_t N : {int64_t(1), int64_t(15), int64_t(17), int64_t(64), int64_t(65), int64_t(300)})
      for (const auto& [E, M] : {std::pair<int64_t, int64_t>{32, 32}, {8, 24}}) {
        const double tol = dtype == DType::f32 ? 1e-4 : 1e-11;
        const Tensor q = inputs({2, 3, N, E}, dtype, 11), k = inputs({2, 3, N, E}, dtype, 12);
        const Tensor v = inputs({2, N, 3, M}, dtype, 13).transpose(1, 2);  // a head-split view
        const Tensor g = inputs({2, 3, N, M}, dtype, 14);
        Tensor out = Tensor::empty({2, 3, N, M}, dtype), gout = Tensor::empty({2, 3, N, M}, dtype, kGpu);
        host().causal_product_forward(q, k, v, out);
        gpu().causal_product_forward(q.to(kGpu), k.to(kGpu), v.to(kGpu), gout);
        const std::string at = " N " + std::to_string(N) + " E " + std::to_string(E);
        expect_close(out, gout, tol, "causal forward" + at);
        Tensor gq = Tensor::empty({2, 3, N, E}, dtype), gk = Tensor::empty({2, 3, N, E}, dtype);
        Tensor gv = Tensor::empty({2, 3, N, M}, dtype);
        Tensor dq = Tensor::empty({2, 3, N, E}, dtype, kGpu), dk = Tensor::empty({2, 3, N, E}, dtype, kGpu);
        Tensor dv = Tensor::empty({2, 3, N, M}, dtype, kGpu);
        host().causal_product_backward(q, k, v, g, gq, gk, gv);
        gpu().causal_product_backward(q.to(kGpu), k.to(kGpu), v.to(kGpu), g.to(kGpu), dq, dk, dv);
        expect_close(gq, dq, tol, "causal gq" + at);
        expect_close(gk, dk, tol, "causal gk" + at);
        expect_close(gv, dv, tol, "causal gv" + at);
      }
  const Tensor big = Tensor::zeros({1, 1, 4, 128}, DType::f32, kGpu);
  Tensor out = Tensor::empty({1, 1, 4, 128}, DType::f32, kGpu);
  EXPECT_HAS(error_of([&] { gpu().causal_product_forward(big, big, big, out); }), "do not fit");
}

// Causal linear attention's normaliser (cuda/causal_normalise.cu) against the CPU's: E and M below
// and above a warp, a head-split q, both float dtypes; positive q, k as φ gives them. Tolerance as above.
TEST(CoreCudaKernels, CausalNormaliseAgreesWithTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (DType dtype : {DType::f32, DType::f64})
    for (const int64_t N : {int64_t(1), int64_t(40)})
      for (const auto& [E, M] : {std::pair<int64_t, int64_t>{32, 32}, {5, 70}}) {
        const double tol = dtype == DType::f32 ? 1e-4 : 1e-11;
        const Tensor q = ops::add(ops::abs(inputs({2, N, 3, E}, dtype, 21)), 0.1).transpose(1, 2);
        const Tensor k = ops::add(ops::abs(inputs({2, 3, N, E}, dtype, 22)), 0.1);
        const Tensor num = inputs({2, 3, N, M}, dtype, 23), g = inputs({2, 3, N, M}, dtype, 24);
        Tensor out = Tensor::empty({2, 3, N, M}, dtype), den = Tensor::empty({2, 3, N}, dtype);
        Tensor gout = Tensor::empty({2, 3, N, M}, dtype, kGpu), gden = Tensor::empty({2, 3, N}, dtype, kGpu);
        host().causal_normalise_forward(q, k, num, 1e-6, out, den);
        gpu().causal_normalise_forward(q.to(kGpu), k.to(kGpu), num.to(kGpu), 1e-6, gout, gden);
        const std::string at = " N " + std::to_string(N) + " E " + std::to_string(E);
        expect_close(out, gout, tol, "normalise out" + at);
        expect_close(den, gden, tol, "normalise den" + at);
        Tensor gn = Tensor::empty({2, 3, N, M}, dtype), gq = Tensor::empty({2, 3, N, E}, dtype),
               gk = Tensor::empty({2, 3, N, E}, dtype);
        Tensor dn = Tensor::empty({2, 3, N, M}, dtype, kGpu), dq = Tensor::empty({2, 3, N, E}, dtype, kGpu),
               dk = Tensor::empty({2, 3, N, E}, dtype, kGpu);
        host().causal_normalise_backward(q, k, out, den, g, gn, gq, gk);
        gpu().causal_normalise_backward(q.to(kGpu), k.to(kGpu), gout, gden, g.to(kGpu), dn, dq, dk);
        expect_close(gn, dn, tol, "normalise gnum" + at);
        expect_close(gq, dq, tol, "normalise gq" + at);
        expect_close(gk, dk, tol, "normalise gk" + at);
      }
}

// Random fills: the same generator state on both devices gives the same bits for uniforms (float32
// and float64, [0, 1) as dropout draws and another range), consumes the same blocks, and normals agree
// to a few float64 ulps (each device's sqrt/log/sin/cos). Sizes cover a partial last block.
TEST(CoreCudaKernels, UniformFillsAreBitIdenticalToTheCpuAndNormalsAgree) {
  LINTRA_SKIP_WITHOUT_GPU();
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

// Dropout in one pass: the same mask blocks give the CPU's output bit for bit, contiguous or strided.
TEST(CoreCudaKernels, DropoutIsBitIdenticalToTheCpu) {
  LINTRA_SKIP_WITHOUT_GPU();
  for (const int64_t n : {int64_t(1), int64_t(7), int64_t(1) << 20 | 3}) {
    Generator data(21), mask_gen(22, 1);
    mask_gen.set_state({22, 1, (uint64_t(1) << 32) - 5});
    const Tensor x = Tensor::uniform({n}, data, -2, 2);
    const ops::DropoutMask m = ops::draw_dropout_mask(mask_gen, n, 0.85);
    expect_close(ops::apply_dropout(x, m), ops::apply_dropout(x.to(kGpu), m), 0.0, "dropout " + std::to_string(n));
  }
  Generator data(23), mask_gen(24);
  const Tensor xt = Tensor::uniform({33, 17}, data, -1, 1).transpose(0, 1);
  const ops::DropoutMask m = ops::draw_dropout_mask(mask_gen, xt.numel(), 0.5);
  expect_close(ops::apply_dropout(xt, m), ops::apply_dropout(xt.to(kGpu), m), 0.0, "dropout strided");
  // The gate (relu's input) and the residual, strided too.
  const Tensor gate = Tensor::uniform({33, 17}, data, -1, 1).transpose(0, 1), residual = Tensor::uniform({17, 33}, data, -1, 1);
  expect_close(ops::apply_dropout(xt, m, gate, residual),
               ops::apply_dropout(xt.to(kGpu), m, gate.to(kGpu), residual.to(kGpu)), 0.0, "dropout gate and residual");
}

}  // namespace
}  // namespace lintra
