// test_conformance.cpp — the conformance suite (DESIGN.md §5): every attention variant
// in the registry is checked here with no per-variant code. The registry is the built-ins plus
// "toy-mean", a test-only variant registered below exactly as a new variant would be; it shows
// that a registration alone puts a variant through every check.
//
// Per variant, for each mask configuration it declares (mask_support()):
//   gradcheck           float64 central differences at B=2, H=2, N=S=5, E=3, M=4 (eval mode, so
//                       attention dropout is off)
//   causality           under a causal mask, changing q, k, v after position t changes no output ≤ t
//   key lengths         changing padded keys/values changes nothing; a zero length gives finite values
//   recurrent           step() for t = 0…N−1 equals the causal batch output row by row (float32,
//                       max abs diff ≤ 1e-5) and gives the same gradients (float64)
//   raw step            make_raw_step()'s float32 form, heads stepped in two uneven ranges, equals
//                       step() (max abs diff ≤ 1e-5) and restarts at t = 0
//   determinism         two instances from the same generator seed give bitwise-equal outputs in
//                       training mode
//   errors              unsupported masks, mismatched shapes/dtypes, bad key lengths and (for a
//                       variant without cross_attention) N ≠ S throw lintra::Error naming the
//                       variant and the problem
//
// Every case runs on the CPU (instantiation Registered), on the strict test device (instantiation
// Strict, core/device.h) and on the GPU (instantiation Cuda, cuda:0; skipped where no GPU is visible or
// the build has no CUDA): inputs, masks and key lengths are made on the device, so a variant that reads
// tensor data on the host or makes a tensor on the wrong device fails its Strict cases, and one whose
// CUDA kernels disagree with the math fails its Cuda cases.
#include <gtest/gtest.h>

#include <cctype>

#include "nn/attention/registry.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;

// --- a test-only variant -------------------------------------------------------------------------

// toy-mean: each query returns the plain average of the values it may see (q and k are unused).
// Masks: full, causal, key lengths; a query that sees no key returns 0. No recurrent form.
class ToyMeanAttention : public InnerAttention {
 public:
  ToyMeanAttention() : InnerAttention("toy-mean") {}
  MaskSupport mask_support() const override { return {.full = true, .causal = true, .key_lengths = true}; }

 protected:
  Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) override {
    const int64_t B = q.size(0), N = q.size(2), S = k.size(2);
    const Device dev = v.data().device();
    Tensor allowed = masks.allowed(B, N, S, dev);
    Tensor w = allowed.defined() ? allowed.to(v.dtype()) : Tensor::ones({1, 1, N, S}, v.dtype(), dev);
    Tensor count = ops::maximum(ops::sum(w, {3}, true), Tensor::scalar(1.0, v.dtype(), dev));
    return matmul(Var(ops::div(w, count)), v);  // (B|1, 1, N, S)·(B, H, S, M) → (B, H, N, M)
  }
};

void register_toy_mean_attention(AttentionRegistry& registry) {
  registry.add(
      "toy-mean", [](const AttentionParams&, const AttentionContext&) { return std::make_shared<ToyMeanAttention>(); },
      {}, "test-only: uniform average over the allowed keys");
}

const AttentionRegistry& conformance_registry() {
  static const AttentionRegistry registry = [] {
    AttentionRegistry r;
    register_builtin_attentions(r);
    register_toy_mean_attention(r);
    return r;
  }();
  return registry;
}

// --- the suite -----------------------------------------------------------------------------------

constexpr int64_t B = 2, H = 2, N = 5, E = 3, M = 4;

Tensor lengths_of(std::vector<int64_t> l, Device d) { return Tensor::from_vector(l, {int64_t(l.size())}, d); }

struct MaskCase {
  std::string name;
  AttentionMasks masks;
  bool accepted;
  std::string refusal;  // what the error must mention when not accepted
};

std::vector<MaskCase> mask_cases(const MaskSupport& s, Device d) {
  Tensor len = lengths_of({N, 3}, d);
  auto refusal = [&](bool base_ok, const char* base) { return base_ok ? std::string("key lengths") : std::string(base); };
  return {{"full", AttentionMasks::full(), s.full, "full (non-causal) mask"},
          {"causal", AttentionMasks::causal(), s.causal, "causal mask"},
          {"full+lengths", AttentionMasks::full().with_key_lengths(len), s.full && s.key_lengths,
           refusal(s.full, "full (non-causal) mask")},
          {"causal+lengths", AttentionMasks::causal().with_key_lengths(len), s.causal && s.key_lengths,
           refusal(s.causal, "causal mask")}};
}

struct ConformanceCase {
  std::string variant;
  Device device;
};
void PrintTo(const ConformanceCase& c, std::ostream* os) { *os << c.variant << " on " << c.device.str(); }

class NnAttentionConformance : public ::testing::TestWithParam<ConformanceCase> {
 protected:
  void SetUp() override {
    LINTRA_SKIP_WITHOUT_GPU_ON(device());
  }
  const std::string& variant() const { return GetParam().variant; }
  Device device() const { return GetParam().device; }
  std::shared_ptr<InnerAttention> make(uint64_t seed = 1, int64_t e = E, int64_t m = M) {
    auto attn = conformance_registry().create(
        variant(), {}, AttentionContext{.query_dim = e, .value_dim = m, .n_heads = H, .generator = Generator(seed, 7)});
    attn->eval();
    return attn;
  }
  Tensor rand(const Shape& shape, DType dtype = DType::f64) {
    return Tensor::uniform(shape, gen_, -1, 1, dtype, device());
  }
  Tensor lengths(std::vector<int64_t> l) const { return lengths_of(std::move(l), device()); }
  std::vector<MaskCase> masks_of(const InnerAttention& a) const { return mask_cases(a.mask_support(), device()); }
  Generator gen_{2024};
};

TEST_P(NnAttentionConformance, Gradcheck) {
  auto attn = make();
  Tensor q = rand({B, H, N, E}), k = rand({B, H, N, E}), v = rand({B, H, N, M});
  int checked = 0;
  for (const MaskCase& mc : masks_of(*attn)) {
    if (!mc.accepted) continue;
    GradcheckResult r = gradcheck(
        [&](const std::vector<Var>& x) { return attn->forward(x[0], x[1], x[2], mc.masks); }, {q, k, v});
    EXPECT_TRUE(r.ok) << variant() << " with " << mc.name << ": " << r.message;
    ++checked;
  }
  EXPECT_GT(checked, 0) << "a variant must accept the full or the causal mask";
}

TEST_P(NnAttentionConformance, CausalMaskHidesTheFuture) {
  auto attn = make();
  const MaskSupport s = attn->mask_support();
  if (!s.causal) GTEST_SKIP() << variant() << " does not accept the causal mask";
  std::vector<AttentionMasks> cases = {AttentionMasks::causal()};
  if (s.key_lengths) cases.push_back(AttentionMasks::causal().with_key_lengths(lengths({N, 3})));
  for (const AttentionMasks& masks : cases) {
    Tensor q = rand({B, H, N, E}), k = rand({B, H, N, E}), v = rand({B, H, N, M});
    Tensor out = attn->forward(Var(q), Var(k), Var(v), masks).data();
    for (int64_t t = 0; t + 1 < N; ++t) {
      Tensor q2 = q.clone(), k2 = k.clone(), v2 = v.clone();
      q2.narrow(2, t + 1, N - t - 1).copy_(rand({B, H, N - t - 1, E}));
      k2.narrow(2, t + 1, N - t - 1).copy_(rand({B, H, N - t - 1, E}, DType::f64));
      v2.narrow(2, t + 1, N - t - 1).copy_(rand({B, H, N - t - 1, M}));
      Tensor out2 = attn->forward(Var(q2), Var(k2), Var(v2), masks).data();
      EXPECT_LE(ops::max_abs_diff(out.narrow(2, 0, t + 1), out2.narrow(2, 0, t + 1)), 1e-12)
          << variant() << " (" << masks.describe() << "): output at or before " << t << " saw the future";
      EXPECT_GT(ops::max_abs_diff(out.narrow(2, t + 1, N - t - 1), out2.narrow(2, t + 1, N - t - 1)), 0.0);
    }
  }
}

TEST_P(NnAttentionConformance, KeyLengthsHidePaddedKeys) {
  auto attn = make();
  const MaskSupport s = attn->mask_support();
  if (!s.key_lengths) GTEST_SKIP() << variant() << " does not accept key lengths";
  std::vector<AttentionMasks> bases;
  if (s.full) bases.push_back(AttentionMasks::full());
  if (s.causal) bases.push_back(AttentionMasks::causal());
  const std::vector<int64_t> len = {N, 2};
  for (const AttentionMasks& base : bases) {
    AttentionMasks masks = base.with_key_lengths(lengths(len));
    Tensor q = rand({B, H, N, E}), k = rand({B, H, N, E}), v = rand({B, H, N, M});
    Tensor out = attn->forward(Var(q), Var(k), Var(v), masks).data();
    Tensor k2 = k.clone(), v2 = v.clone();
    for (int64_t b = 0; b < B; ++b) {
      const int64_t pad = N - len[size_t(b)];
      if (pad == 0) continue;
      k2.select(0, b).narrow(1, len[size_t(b)], pad).copy_(rand({H, pad, E}));
      v2.select(0, b).narrow(1, len[size_t(b)], pad).copy_(rand({H, pad, M}));
    }
    Tensor out2 = attn->forward(Var(q), Var(k2), Var(v2), masks).data();
    EXPECT_LE(ops::max_abs_diff(out, out2), 1e-12) << variant() << " (" << masks.describe() << ") read padded keys";
    // A sequence with no key at all: finite outputs and gradients.
    Var qv(q, true), kv(k, true), vv(v, true);
    Var y = attn->forward(qv, kv, vv, base.with_key_lengths(lengths({0, N})));
    EXPECT_TRUE(ops::all_finite(y.data())) << variant() << " (" << base.describe() << ", a zero key length)";
    sum(y).backward();
    for (const Var& x : {qv, kv, vv}) {
      if (x.grad().defined()) {
        EXPECT_TRUE(ops::all_finite(x.grad())) << variant();
      }
    }
  }
}

TEST_P(NnAttentionConformance, RecurrentMatchesBatchStepByStep) {
  auto attn = make(1, 8, 6);
  if (!attn->has_recurrent()) {
    RecurrentState state;
    EXPECT_HAS(error_of([&] { attn->step(Var(rand({B, H, 8})), Var(rand({B, H, 8})), Var(rand({B, H, 6})), state); }),
               "has no recurrent form");
    GTEST_SKIP() << variant() << " has no recurrent form";
  }
  ASSERT_TRUE(attn->mask_support().causal) << "a recurrent form is the causal model step by step";
  const int64_t T = 16;
  // float32 values, as in generation.
  Tensor q = rand({B, H, T, 8}, DType::f32), k = rand({B, H, T, 8}, DType::f32), v = rand({B, H, T, 6}, DType::f32);
  Tensor batch = attn->forward(Var(q), Var(k), Var(v), AttentionMasks::causal()).data();
  RecurrentState state;
  for (int64_t t = 0; t < T; ++t) {
    Var y = attn->step(Var(q.select(2, t)), Var(k.select(2, t)), Var(v.select(2, t)), state);
    ASSERT_EQ(y.shape(), Shape({B, H, 6}));
    EXPECT_LE(ops::max_abs_diff(y.data(), batch.select(2, t)), 1e-5) << variant() << " at step " << t;
  }
  EXPECT_EQ(state.steps, T);
  // float64 with a graph through the state: the same values and the same gradients.
  Var q64(q.to(DType::f64), true), k64(k.to(DType::f64), true), v64(v.to(DType::f64), true);
  Tensor w = rand({B, H, T, 6});
  sum(mul(attn->forward(q64, k64, v64, AttentionMasks::causal()), Var(w))).backward();
  Tensor gq = q64.grad(), gk = k64.grad(), gv = v64.grad();
  q64.zero_grad();
  k64.zero_grad();
  v64.zero_grad();
  RecurrentState graph_state;
  Var loss(Tensor::scalar(0.0, DType::f64, device()));
  for (int64_t t = 0; t < T; ++t) {
    Var y = attn->step(select(q64, 2, t), select(k64, 2, t), select(v64, 2, t), graph_state);
    loss = add(loss, sum(mul(y, Var(w.select(2, t)))));
  }
  loss.backward();
  EXPECT_LE(ops::max_abs_diff(q64.grad(), gq), 1e-10) << variant();
  EXPECT_LE(ops::max_abs_diff(k64.grad(), gk), 1e-10) << variant();
  EXPECT_LE(ops::max_abs_diff(v64.grad(), gv), 1e-10) << variant();
}

TEST_P(NnAttentionConformance, RawStepMatchesStep) {
  constexpr int64_t HR = 3, T = 12, Eq = 8, Mv = 6;
  auto attn = conformance_registry().create(
      variant(), {}, AttentionContext{.query_dim = Eq, .value_dim = Mv, .n_heads = HR, .generator = Generator(1, 7)});
  attn->eval();
  std::unique_ptr<RawRecurrentStep> raw =
      attn->make_raw_step({.batch = B, .heads = HR, .query_dim = Eq, .value_dim = Mv, .max_steps = T});
  if (!raw) GTEST_SKIP() << variant() << " has no raw recurrent step";
  ASSERT_TRUE(attn->has_recurrent()) << "a raw step is the recurrent form on raw buffers";
  Tensor q = rand({B, HR, T, Eq}, DType::f32), k = rand({B, HR, T, Eq}, DType::f32),
         v = rand({B, HR, T, Mv}, DType::f32);
  for (int pass = 0; pass < 2; ++pass) {  // the second pass restarts at t = 0 on a used state
    RecurrentState state;
    for (int64_t t = 0; t < T; ++t) {
      Tensor expected = attn->step(Var(q.select(2, t)), Var(k.select(2, t)), Var(v.select(2, t)), state).data();
      const std::vector<float> qt = q.select(2, t).cpu().to_vector<float>();  // raw steps read host buffers
      const std::vector<float> kt = k.select(2, t).cpu().to_vector<float>();
      const std::vector<float> vt = v.select(2, t).cpu().to_vector<float>();
      // Queries and keys interleaved in one (B, 2·H·E) buffer, as a fused projection lays them out.
      std::vector<float> qk(size_t(B * 2 * HR * Eq)), vv(size_t(B * 2 * HR * Eq)), y(size_t(B * HR * Mv), -1.0f);
      for (int64_t b = 0; b < B; ++b) {
        std::copy_n(qt.begin() + b * HR * Eq, HR * Eq, qk.begin() + b * 2 * HR * Eq);
        std::copy_n(kt.begin() + b * HR * Eq, HR * Eq, qk.begin() + b * 2 * HR * Eq + HR * Eq);
        std::copy_n(vt.begin() + b * HR * Mv, HR * Mv, vv.begin() + b * 2 * HR * Eq);
      }
      const RawStepIO io{.q = qk.data(), .k = qk.data() + HR * Eq, .v = vv.data(), .in_stride = 2 * HR * Eq,
                         .y = y.data(), .out_stride = HR * Mv};
      raw->step(t, io, 1, HR);
      raw->step(t, io, 0, 1);
      EXPECT_LE(ops::max_abs_diff(Tensor::from_vector(y, {B, HR, Mv}), expected.cpu()), 1e-5)
          << variant() << " at step " << t << ", pass " << pass;
    }
  }
}

TEST_P(NnAttentionConformance, DeterministicForAFixedSeed) {
  auto a1 = make(5), a2 = make(5);
  a1->train();
  a2->train();
  Tensor q = rand({B, H, N, E}, DType::f32), k = rand({B, H, N, E}, DType::f32), v = rand({B, H, N, M}, DType::f32);
  for (const MaskCase& mc : masks_of(*a1)) {
    if (!mc.accepted) continue;
    Tensor y1 = a1->forward(Var(q), Var(k), Var(v), mc.masks).data();
    Tensor y2 = a2->forward(Var(q), Var(k), Var(v), mc.masks).data();
    EXPECT_EQ(ops::max_abs_diff(y1, y2), 0.0) << variant() << " with " << mc.name;
  }
}

TEST_P(NnAttentionConformance, OutputShapeAndDtype) {
  auto attn = make();
  for (DType dt : {DType::f32, DType::f64}) {
    for (const MaskCase& mc : masks_of(*attn)) {
      if (!mc.accepted) continue;
      Var y = attn->forward(Var(rand({B, H, N, E}, dt)), Var(rand({B, H, N, E}, dt)), Var(rand({B, H, N, M}, dt)),
                            mc.masks);
      EXPECT_EQ(y.shape(), Shape({B, H, N, M})) << variant() << " with " << mc.name;
      EXPECT_EQ(y.dtype(), dt);
    }
  }
  if (attn->mask_support().full) {  // cross-attention: N queries, S keys
    Var q(rand({B, H, 4, E})), k(rand({B, H, 6, E})), v(rand({B, H, 6, M}));
    if (attn->mask_support().cross_attention) {
      EXPECT_EQ(attn->forward(q, k, v, {}).shape(), Shape({B, H, 4, M})) << variant();
    } else {  // shared-QK variants refuse it clearly
      std::string msg = error_of([&] { attn->forward(q, k, v, {}); });
      EXPECT_HAS(msg, "attention '" + variant() + "'");
      EXPECT_HAS(msg, "as many queries as keys");
    }
  }
}

TEST_P(NnAttentionConformance, UnsupportedMasksAreClearErrors) {
  auto attn = make();
  Var q(rand({B, H, N, E})), k(rand({B, H, N, E})), v(rand({B, H, N, M}));
  for (const MaskCase& mc : masks_of(*attn)) {
    if (mc.accepted) continue;
    std::string msg = error_of([&] { attn->forward(q, k, v, mc.masks); });
    EXPECT_HAS(msg, "attention '" + variant() + "'");
    EXPECT_HAS(msg, mc.refusal);
  }
}

TEST_P(NnAttentionConformance, BadInputsAreClearErrors) {
  auto attn = make();
  const MaskSupport s = attn->mask_support();
  const AttentionMasks masks = s.full ? AttentionMasks::full() : AttentionMasks::causal();
  const std::string who = "attention '" + variant() + "'";
  Var q(rand({B, H, N, E})), k(rand({B, H, N, E})), v(rand({B, H, N, M}));
  auto expect_error = [&](const Var& q_, const Var& k_, const Var& v_, const AttentionMasks& m, const char* what) {
    std::string msg = error_of([&] { attn->forward(q_, k_, v_, m); });
    EXPECT_HAS(msg, who);
    EXPECT_HAS(msg, what);
  };
  expect_error(q, Var(rand({B, H, N, E + 1})), v, masks, "share the head dim E");
  expect_error(q, k, Var(rand({B, H, N + 1, M})), masks, "same length S");
  expect_error(Var(rand({B, N, E})), k, v, masks, "expected q (B, H, N, E)");
  expect_error(Var(rand({B + 1, H, N, E})), k, v, masks, "batch and head dims differ");
  expect_error(q, Var(rand({B, H, N, E}, DType::f32)), v, masks, "one floating dtype");
  if (s.key_lengths) {
    expect_error(q, k, v, masks.with_key_lengths(lengths({N, N, N})), "key lengths must be int64 of shape (2)");
    expect_error(q, k, v, masks.with_key_lengths(Tensor::ones({B}, DType::f32, device())), "key lengths must be int64");
    expect_error(q, k, v, masks.with_key_lengths(lengths({N + 1, 1})), "outside [0, 5]");
  }
  if (s.causal) {
    expect_error(Var(rand({B, H, N - 1, E})), k, v, AttentionMasks::causal(), "as many queries as keys");
  }
}

std::vector<ConformanceCase> cases_on(Device d) {
  std::vector<ConformanceCase> out;
  for (const std::string& n : conformance_registry().names()) out.push_back({n, d});
  return out;
}

std::string variant_test_name(const ::testing::TestParamInfo<ConformanceCase>& info) {
  std::string s = info.param.variant;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Registered, NnAttentionConformance, ::testing::ValuesIn(cases_on(Device::cpu)),
                         variant_test_name);
INSTANTIATE_TEST_SUITE_P(Strict, NnAttentionConformance, ::testing::ValuesIn(cases_on(Device::strict())),
                         variant_test_name);
INSTANTIATE_TEST_SUITE_P(Cuda, NnAttentionConformance, ::testing::ValuesIn(cases_on(Device::cuda(0))),
                         variant_test_name);

TEST(NnAttentionConformanceCoverage, CoversEveryBuiltinAndTheToy) {
  std::vector<std::string> names = conformance_registry().names();
  for (const std::string& n : builtin_attention_registry().names())
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_NE(std::find(names.begin(), names.end(), "toy-mean"), names.end());
}

}  // namespace
}  // namespace lintra::nn
