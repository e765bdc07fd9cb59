// test_matmul_kernel.cpp — invariant: ops::matmul equals the triple-loop float64 oracle for 2-D,
// batched and broadcast-batch products, for 1-d operands, and for operands in every layout the
// BLAS wrapper treats differently: row-major, transposed views passed directly (a.transpose(-1,-2),
// read as CblasTrans without a copy), step-sliced and expanded (copied first), batch dims that fold
// into one GEMM and ones that do not, and the OpenMP-over-batch schedule; and ops::addmm (c + a·b
// with the GEMM accumulating onto c) on each of the wrapper's schedules.
//
// Tolerances: each output is a dot product of K terms in [−1, 1]; the worst-case rounding error is
// K·u·Σ|a·b| ≤ K²·u. K ≤ 13 in the small cases: float32 (u = 2^-24) 169·6e-8 ≈ 1e-5 → atol 2e-5;
// float64 (u = 2^-53) ≈ 2e-14 → atol 1e-13. The K = 64 case: float32 atol 3e-4, float64 1e-12.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "core/ops.h"
#include "core/reference/reference.h"
#include "core/threading.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using testing::close_to;
using testing::Layout;
using testing::make_input;
using testing::Tol;

const std::vector<DType> kFloat = {DType::f32, DType::f64};
Tol small_tol(DType dt) { return dt == DType::f32 ? Tol{0, 2e-5} : Tol{0, 1e-13}; }

// ops::matmul(a, b) on one thread and on (at least) two: the schedules differ, the bits must not.
std::pair<Tensor, Tensor> on_one_and_two_threads(const Tensor& a, const Tensor& b) {
  const int before = num_threads();
  set_num_threads(1);
  Tensor one = ops::matmul(a, b);
  set_num_threads(std::max(2, before));
  Tensor two = ops::matmul(a, b);
  set_num_threads(before);
  return {one, two};
}

struct MatmulCase {
  Shape a, b;
};
const std::vector<MatmulCase> kCases = {
    {{3, 5}, {5, 7}},                // 2-D
    {{1, 13}, {13, 1}},              // a row times a column
    {{3, 5, 7}, {3, 7, 4}},          // batched
    {{2, 1, 3, 5}, {4, 5, 7}},       // broadcast batch on both sides
    {{5, 7}, {3, 7, 2}},             // a shared, b batched
    {{4, 3, 5, 7}, {7, 3}},          // b shared: a's batch folds into rows (one GEMM)
    {{3, 1, 13}, {3, 13, 5}},        // M = 1
    {{17, 3}, {3, 1}},               // N = 1
};

TEST(CoreMatmul, MatchesReferenceInEveryLayout) {
  Generator gen(51);
  const std::vector<std::pair<Layout, Layout>> layouts = {
      {Layout::contiguous, Layout::contiguous}, {Layout::permuted, Layout::contiguous},
      {Layout::contiguous, Layout::permuted},   {Layout::strided, Layout::expanded},
      {Layout::expanded, Layout::strided},      {Layout::permuted, Layout::permuted},
  };
  for (DType dt : kFloat)
    for (const MatmulCase& c : kCases)
      for (const auto& [la, lb] : layouts) {
        Tensor a = make_input(c.a, dt, la, gen);
        Tensor b = make_input(c.b, dt, lb, gen);
        EXPECT_TRUE(close_to(ops::matmul(a, b), reference::matmul(a, b), small_tol(dt)))
            << dt << " " << shape_str(c.a) << " " << testing::layout_name(la) << " · " << shape_str(c.b) << " "
            << testing::layout_name(lb);
      }
}

TEST(CoreMatmul, TransposedOperandsPassedDirectly) {
  // a.transpose(-1, -2) as the operand: no copy in between, the kernel must read it transposed.
  Generator gen(52);
  for (DType dt : kFloat) {
    Tensor at = Tensor::uniform({3, 7, 5}, gen, -1, 1, dt);  // a = atᵀ is (3, 5, 7)
    Tensor bt = Tensor::uniform({3, 4, 7}, gen, -1, 1, dt);  // b = btᵀ is (3, 7, 4)
    Tensor a = at.transpose(-1, -2), b = bt.transpose(-1, -2);
    Tensor ac = Tensor::uniform({3, 5, 7}, gen, -1, 1, dt), bc = Tensor::uniform({3, 7, 4}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(a, bc), reference::matmul(a, bc), small_tol(dt))) << dt;
    EXPECT_TRUE(close_to(ops::matmul(ac, b), reference::matmul(ac, b), small_tol(dt))) << dt;
    EXPECT_TRUE(close_to(ops::matmul(a, b), reference::matmul(a, b), small_tol(dt))) << dt;
    // 2-D: x · Wᵀ, the linear layer's product, and Aᵀ · B, its weight gradient.
    Tensor x = Tensor::uniform({13, 5}, gen, -1, 1, dt), w = Tensor::uniform({7, 5}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(x, w.transpose(0, 1)), reference::matmul(x, w.transpose(0, 1)), small_tol(dt)));
    Tensor g = Tensor::uniform({13, 7}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(x.transpose(0, 1), g), reference::matmul(x.transpose(0, 1), g),
                         {0, dt == DType::f32 ? 2e-5 : 1e-13}));
    // Batched a (…, M, K) with a shared transposed b: the folding schedule with CblasTrans on b.
    Tensor xb = Tensor::uniform({2, 3, 5}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(xb, w.transpose(0, 1)), reference::matmul(xb, w.transpose(0, 1)), small_tol(dt)));
    // A permuted batch that cannot fold into rows.
    Tensor xp = Tensor::uniform({3, 2, 5}, gen, -1, 1, dt).transpose(0, 1);  // (2, 3, 5), batch stride 5
    EXPECT_TRUE(close_to(ops::matmul(xp, w.transpose(0, 1)), reference::matmul(xp, w.transpose(0, 1)), small_tol(dt)));
  }
}

TEST(CoreMatmul, OneDimensionalOperands) {
  Generator gen(53);
  for (DType dt : kFloat) {
    Tensor v = Tensor::uniform({5}, gen, -1, 1, dt), u = Tensor::uniform({7}, gen, -1, 1, dt);
    Tensor m = Tensor::uniform({5, 7}, gen, -1, 1, dt), bm = Tensor::uniform({3, 5, 7}, gen, -1, 1, dt);
    Tensor vm = ops::matmul(v, m);  // (5)·(5, 7) → (7)
    EXPECT_EQ(vm.shape(), (Shape{7}));
    EXPECT_TRUE(close_to(vm, reference::matmul(v.unsqueeze(0), m).squeeze(0), small_tol(dt)));
    Tensor mu = ops::matmul(m, u);  // (5, 7)·(7) → (5)
    EXPECT_EQ(mu.shape(), (Shape{5}));
    EXPECT_TRUE(close_to(mu, reference::matmul(m, u.unsqueeze(1)).squeeze(1), small_tol(dt)));
    Tensor bu = ops::matmul(bm, u);  // (3, 5, 7)·(7) → (3, 5)
    EXPECT_EQ(bu.shape(), (Shape{3, 5}));
    EXPECT_TRUE(close_to(bu, reference::matmul(bm, u.unsqueeze(1)).squeeze(-1), small_tol(dt)));
    Tensor dot = ops::matmul(v, v.slice(0, 0, 5));  // (5)·(5) → ()
    EXPECT_EQ(dot.dim(), 0);
    EXPECT_TRUE(close_to(dot, reference::matmul(v.unsqueeze(0), v.unsqueeze(1)).reshape({}), small_tol(dt)));
  }
}

TEST(CoreMatmul, ManySmallProductsAndLargerOnes) {
  // 64 batches of 9×64·64×11 take the OpenMP-over-batch schedule; the 2-D 96×64·64×80 product one
  // multi-threaded GEMM. K = 64: float32 atol 64²·6e-8·(|a·b| ≤ 1) ≈ 2.4e-4 → 3e-4.
  Generator gen(54);
  for (DType dt : kFloat) {
    Tol tol = dt == DType::f32 ? Tol{0, 3e-4} : Tol{0, 1e-12};
    Tensor a = Tensor::uniform({64, 9, 64}, gen, -1, 1, dt), b = Tensor::uniform({64, 64, 11}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(a, b), reference::matmul(a, b), tol)) << dt;
    Tensor bt = Tensor::uniform({64, 11, 64}, gen, -1, 1, dt).transpose(-1, -2);
    EXPECT_TRUE(close_to(ops::matmul(a, bt), reference::matmul(a, bt), tol)) << dt;
    Tensor c = Tensor::uniform({96, 64}, gen, -1, 1, dt), d = Tensor::uniform({80, 64}, gen, -1, 1, dt);
    EXPECT_TRUE(close_to(ops::matmul(c, d.transpose(0, 1)), reference::matmul(c, d.transpose(0, 1)), tol)) << dt;
  }
}

// A long reduction onto a small output (a weight gradient's shape: K = 4,100 ≥ 4·max(M, N)) is cut
// into slabs of K (cpu/matmul.cpp gemm_reduction_slabs: 2048, 2048, 4): against the oracle with a
// transposed left operand and a plain or a transposed right one, and bit for bit the same on one
// thread as on two. K = 4,100: float32 atol K·u·Σ|a·b| with |a·b| ≤ 1/4 here
// (entries in [−½, ½]) ≈ 4,100·6e-8·1,025 ≈ 0.25 worst case; the errors are random-signed, so about
// √K·u·Σ|a·b| ≈ 4e-6 in practice: atol 8e-3 leaves a wide margin; float64 1e-10.
TEST(CoreMatmul, LongReductionsSplitIntoSlabsMatchTheOracleOnAnyThreadCount) {
  Generator gen(55);
  const int64_t M = 40, N = 33, K = 4100;
  for (DType dt : kFloat) {
    const Tol tol = dt == DType::f32 ? Tol{0, 8e-3} : Tol{0, 1e-10};
    const Tensor at = Tensor::uniform({K, M}, gen, -0.5, 0.5, dt).transpose(0, 1);  // (M, K), read as CblasTrans
    const Tensor b = Tensor::uniform({K, N}, gen, -0.5, 0.5, dt);
    const Tensor bt = Tensor::uniform({N, K}, gen, -0.5, 0.5, dt).transpose(0, 1);
    for (const Tensor& right : {b, bt}) {
      const Tensor want = reference::matmul(at, right);
      EXPECT_TRUE(close_to(ops::matmul(at, right), want, tol)) << dt;
      const auto [one, two] = on_one_and_two_threads(at, right);
      EXPECT_TRUE(testing::equal_to(one, two)) << dt << ": the slabs do not depend on the thread count";
    }
  }
}

// Narrow float32 products (30 ≤ N ≤ 128 output columns: the attention's per-head outputs) go to
// oneDNN's sgemm where the build has it (cpu/matmul.cpp), to OpenBLAS otherwise or with LINTRA_ONEDNN_SGEMM=0:
// against the oracle on every schedule — one
// serial call (under 2^21 multiply-adds), OpenMP over a batch of heads, row panels of one large product —
// with a plain and a transposed left operand (a·v and aᵀ·dO), the MoL head's N = 30, and bit for bit the
// same on one thread as on two (each element one K-long sum whatever the panel). Entries in [−½, ½]:
// float32 atol K·u·Σ|a·b| ≤ 300·6e-8·75 ≈ 1.3e-3 worst case (K ≤ 300): 2e-3.
TEST(CoreMatmul, NarrowProductsMatchTheOracleAndDoNotDependOnTheThreadCount) {
  Generator gen(57);
  struct Case {
    Shape a, b;
    bool transpose_a;
  };
  const std::vector<Case> cases = {
      {{50, 40}, {40, 32}, false},            // one serial call
      {{4, 300, 200}, {4, 200, 32}, false},   // OpenMP over the batch (a·v of 4 heads)
      {{4, 200, 300}, {4, 200, 32}, true},    // the same with aᵀ (aᵀ·dO)
      {{720, 100}, {100, 32}, false},         // row panels of one product (≥ 2^21 multiply-adds)
      {{100, 720}, {100, 32}, true},          // row panels, a transposed
      {{700, 256}, {256, 30}, false},         // the mixture-of-logistics head
      {{3, 260, 96}, {3, 96, 128}, false},    // the widest narrow output
  };
  for (const Case& c : cases) {
    Tensor a = Tensor::uniform(c.a, gen, -0.5, 0.5);
    if (c.transpose_a) a = a.transpose(-1, -2);
    const Tensor b = Tensor::uniform(c.b, gen, -0.5, 0.5);
    const std::string what = shape_str(a.shape()) + (c.transpose_a ? " (transposed)" : "") + " · " + shape_str(c.b);
    EXPECT_TRUE(close_to(ops::matmul(a, b), reference::matmul(a, b), Tol{0, 2e-3})) << what;
    const auto [one, two] = on_one_and_two_threads(a, b);
    EXPECT_TRUE(testing::equal_to(one, two)) << what << ": differs between one thread and two";
  }
}

// ops::addmm = c + a·b, c copied into the output and the GEMM accumulating onto it (BLAS's beta = 1),
// on every schedule of cpu/matmul.cpp: one call, a's batch folded into rows, OpenMP over the batch,
// panels, the slabs of a long reduction (c then enters the first slab), and an empty sum (c itself).
// Tolerances as the matmul cases of the same K (adding c rounds once more, well inside them).
TEST(CoreMatmul, AddmmAccumulatesOntoTheAddedTensorOnEverySchedule) {
  Generator gen(56);
  struct Case {
    Shape c, a, b;
    double f32_atol;
  };
  const std::vector<Case> cases = {
      {{7}, {3, 5}, {5, 7}, 2e-5},                     // one call, a bias
      {{3, 7}, {3, 5}, {5, 7}, 2e-5},                  // one call, a residual
      {{3}, {4, 3, 5, 7}, {7, 3}, 2e-5},               // a's batch folds into rows
      {{64, 1, 11}, {64, 9, 64}, {64, 64, 11}, 3e-4},  // OpenMP over the batch, c broadcast over rows
      {{200}, {300, 64}, {64, 200}, 3e-4},             // panels
      {{40, 33}, {40, 4100}, {4100, 33}, 8e-3},        // slabs of a long reduction
      {{32}, {300, 200}, {200, 32}, 2e-3},             // a narrow output (oneDNN where built), a bias
  };
  for (DType dt : kFloat)
    for (const Case& c : cases) {
      const Tol tol = dt == DType::f32 ? Tol{0, c.f32_atol} : Tol{0, 1e-10};
      const Tensor cv = Tensor::uniform(c.c, gen, -1, 1, dt), a = Tensor::uniform(c.a, gen, -0.5, 0.5, dt),
                   b = Tensor::uniform(c.b, gen, -0.5, 0.5, dt);
      EXPECT_TRUE(close_to(ops::addmm(cv, a, b), ops::add(reference::matmul(a, b), cv.to(DType::f64)), tol))
          << dt << " " << shape_str(c.c) << " + " << shape_str(c.a) << " · " << shape_str(c.b);
    }
  const Tensor bias = Tensor::uniform({4}, gen, -1, 1);
  const Tensor empty_sum = ops::addmm(bias, Tensor::zeros({3, 0}), Tensor::zeros({0, 4}));
  EXPECT_TRUE(testing::equal_to(empty_sum, bias.expand({3, 4}).contiguous()));
  EXPECT_THROW(ops::addmm(Tensor::zeros({5}), Tensor::zeros({3, 2}), Tensor::zeros({2, 4})), Error);
  EXPECT_THROW(ops::addmm(bias, Tensor::zeros({2}), Tensor::zeros({2, 4})), Error);  // a 1-d operand
}

TEST(CoreMatmul, EmptyInnerDimGivesZeros) {
  Tensor a = Tensor::zeros({3, 0}), b = Tensor::zeros({0, 4});
  Tensor c = ops::matmul(a, b);
  EXPECT_EQ(c.shape(), (Shape{3, 4}));
  EXPECT_EQ(ops::sum(ops::abs(c)).item(), 0);
}

}  // namespace
}  // namespace lintra
