// test_reformer_attention.cpp — the "reformer" (LSH) attention variant against independent references:
//   registry        defaults are the paper's experiment settings; bad values are clear errors
//   hashing         buckets in [0, 2·bits); scale invariant; antipodal keys land bits apart; one rotation
//                   per round shared over batch and heads; fixed generator state → fixed buckets
//   bucketed        with chosen buckets, lsh_attention equals a dense N×N reference built in this file
//                   (stable sort by bucket then position, chunk + previous chunk, self mask, causal by
//                   position, key lengths, a length that chunk_size does not divide, mean and lse
//                   rounds) in values and gradients; a float64 gradcheck at tiny sizes
//   full window     chunk_size ≥ N and masked = false: any hashing gives shared-QK softmax attention
//                   (keys = normalised queries), with and without the causal mask and key lengths, and
//                   R rounds (mean or lse) equal one round
//   self fallback   under the causal mask position 0 has only itself: its output is v_0
//   memory          peak allocator bytes at N = 16,384 (forward + backward) stay far below the N² of
//                   softmax, and grow linearly in N
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/allocator.h"
#include "nn/attention/reformer_attention.h"
#include "nn/attention/registry.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

using lintra::testing::error_of;
using lintra::testing::random_var;

Tensor lengths_of(std::vector<int64_t> l) { return Tensor::from_vector(l, {int64_t(l.size())}); }

std::shared_ptr<InnerAttention> make(const ParamMap& params, int64_t e, int64_t m, uint64_t seed = 11) {
  auto a = builtin_attention_registry().create(
      "reformer", params, AttentionContext{.query_dim = e, .value_dim = m, .n_heads = 2, .generator = Generator(seed, 3)});
  a->eval();
  return a;
}

// Gradients of Σ out ∘ w with respect to the leaves (cleared afterwards).
std::vector<Tensor> grads_of(const Var& out, const Tensor& w, std::vector<Var> leaves) {
  for (Var& x : leaves) x.zero_grad();
  sum(mul(out, Var(w))).backward();
  std::vector<Tensor> g;
  for (Var& x : leaves) {
    g.push_back(x.grad().defined() ? x.grad() : Tensor::zeros(x.shape(), x.dtype()));
    x.zero_grad();
  }
  return g;
}

void expect_same_values_and_grads(const Var& got, const Var& want, const std::vector<Var>& leaves, Generator& gen,
                                  const std::string& what, double tol = 1e-12) {
  EXPECT_LE(ops::max_abs_diff(got.data(), want.data()), tol) << what;
  Tensor w = Tensor::uniform(got.shape(), gen, -1, 1, DType::f64);
  std::vector<Tensor> g1 = grads_of(got, w, leaves), g2 = grads_of(want, w, leaves);
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_LE(ops::max_abs_diff(g1[i], g2[i]), 1e-10) << what << ", input " << i;
}

// --- the dense reference -------------------------------------------------------------------------

// LSH attention written the slow obvious way: an N×N additive mask per round. Per (b, h) the
// positions are ordered by (bucket, position) — positions past the key length last — and sorted
// slot t belongs to chunk t / C (C = min(chunk, N)); query i may see key j iff j's chunk is i's or the
// one before, j < length, and (causal) j ≤ i; j = i gets −1e9 when masked. Rows with nothing
// admissible output 0 and have ℓ = −1e30.
Var dense_reference(const Var& q, const Var& v, const AttentionMasks& masks, const Tensor& buckets,
                    const LshOptions& o) {
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), R = buckets.size(0);
  const int64_t C = std::min(o.chunk_size, N);
  const double tau = o.softmax_temp ? *o.softmax_temp : 1.0 / std::sqrt(double(E));
  std::vector<int64_t> len(size_t(B), N);
  if (masks.has_key_lengths()) len = masks.key_lengths.to_vector<int64_t>();
  const std::vector<int64_t> bk = buckets.contiguous().to_vector<int64_t>();
  Var keys = div(q, sqrt(sum(square(q), {-1}, true)));
  Var logits = matmul(mul(q, tau), transpose(keys, 2, 3));  // (B, H, N, N)
  std::vector<Var> outs, lses;
  for (int64_t r = 0; r < R; ++r) {
    Tensor additive = Tensor::zeros({B, H, N, N}, DType::f64), ok = Tensor::zeros({B, H, N, 1}, DType::f64);
    double* a = additive.data<double>();
    double* okp = ok.data<double>();
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t h = 0; h < H; ++h) {
        const int64_t* bucket = bk.data() + ((r * B + b) * H + h) * N;
        std::vector<int64_t> order(static_cast<size_t>(N)), chunk_of(static_cast<size_t>(N));
        std::iota(order.begin(), order.end(), 0);
        auto key = [&](int64_t j) { return j < len[size_t(b)] ? bucket[j] : std::numeric_limits<int64_t>::max(); };
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return key(x) < key(y); });
        for (int64_t t = 0; t < N; ++t) chunk_of[size_t(order[size_t(t)])] = t / C;
        for (int64_t i = 0; i < N; ++i) {
          double* row = a + ((b * H + h) * N + i) * N;
          bool any = false;
          for (int64_t j = 0; j < N; ++j) {
            const int64_t d = chunk_of[size_t(i)] - chunk_of[size_t(j)];
            const bool allowed = (d == 0 || d == 1) && j < len[size_t(b)] && !(masks.is_causal() && j > i);
            any = any || allowed;
            row[j] = !allowed ? -INFINITY : (o.masked && i == j ? -1e9 : 0.0);
          }
          okp[(b * H + h) * N + i] = any ? 1 : 0;
          if (!any) std::fill(row, row + N, 0.0);
        }
      }
    }
    Var z = add(logits, Var(additive));
    outs.push_back(matmul(mul(softmax(z, -1), Var(ok)), v));
    Tensor empty = ops::eq(ok, 0.0);
    lses.push_back(where(empty, Var(Tensor::full({B, H, N, 1}, -1e30, DType::f64)), logsumexp(z, {-1}, true)));
  }
  if (R == 1) return outs[0];
  Var out;
  if (o.combine == LshOptions::Combine::lse) {
    Var w = softmax(cat(lses, 3), 3);  // (B, H, N, R)
    for (int64_t r = 0; r < R; ++r) {
      Var term = mul(narrow(w, 3, r, 1), outs[size_t(r)]);
      out = r == 0 ? term : add(out, term);
    }
    return out;
  }
  for (int64_t r = 0; r < R; ++r) out = r == 0 ? outs[0] : add(out, outs[size_t(r)]);
  return mul(out, 1.0 / double(R));
}

// --- registry ------------------------------------------------------------------------------------

TEST(NnAttentionReformer, DefaultsAreThePapersSettings) {
  const AttentionParams p = builtin_attention_registry().resolve("reformer", {});
  EXPECT_EQ(p.get_int("chunk_size"), 32);
  EXPECT_EQ(p.get_int("bits"), 32);  // 64 buckets
  EXPECT_EQ(p.get_int("rounds"), 4);
  EXPECT_TRUE(p.get_bool("masked"));
  EXPECT_FALSE(p.has("softmax_temp"));
  EXPECT_DOUBLE_EQ(p.get_double("attention_dropout"), 0.1);
  EXPECT_EQ(p.get_string("combine"), "mean");
  const AttentionRegistry& reg = builtin_attention_registry();
  EXPECT_HAS(error_of([&] { reg.resolve("reformer", {{"combine", std::string("max")}}); }), "combine");
  EXPECT_HAS(error_of([&] { reg.resolve("reformer", {{"rounds", int64_t(0)}}); }), "rounds");
  EXPECT_HAS(error_of([&] { reg.resolve("reformer", {{"chunk", int64_t(8)}}); }), "chunk_size");
  auto attn = make({{"rounds", int64_t(1)}}, 4, 4);
  EXPECT_FALSE(attn->has_recurrent());
  EXPECT_HAS(attn->describe(), "64 buckets");
  // Shared QK: the keys argument must have the queries' length, and is otherwise ignored.
  Generator gen(1);
  Var q = random_var({1, 2, 5, 4}, gen), v = random_var({1, 2, 5, 4}, gen);
  EXPECT_HAS(error_of([&] { attn->forward(q, random_var({1, 2, 6, 4}, gen), random_var({1, 2, 6, 4}, gen), {}); }),
             "as many queries as keys");
  auto a1 = make({}, 4, 4, 5), a2 = make({}, 4, 4, 5);
  EXPECT_EQ(ops::max_abs_diff(a1->forward(q, random_var({1, 2, 5, 4}, gen), v, {}).data(),
                              a2->forward(q, random_var({1, 2, 5, 4}, gen), v, {}).data()),
            0.0);
}

// --- hashing -------------------------------------------------------------------------------------

TEST(NnAttentionReformer, HashingProperties) {
  const int64_t B = 2, H = 3, N = 50, E = 8, bits = 5, R = 3;
  Generator data(2);
  Tensor k = normalize_rows(Var(Tensor::normal({B, H, N, E}, data, 0, 1, DType::f64))).data();
  Generator g1(7), g2(7), g3(7), g4(7);
  Tensor b = lsh_buckets(k, bits, R, g1);
  ASSERT_EQ(b.shape(), Shape({R, B, H, N}));
  EXPECT_EQ(b.dtype(), DType::i64);
  EXPECT_GE(ops::amin(b).item(), 0);
  EXPECT_LT(ops::amax(b).item(), 2 * bits);
  EXPECT_EQ(ops::max_abs_diff(lsh_buckets(ops::mul(k, 3.5), bits, R, g2), b), 0.0) << "scale invariance";
  // −k projects to −p: the argmax moves from one half of [p; −p] to the other.
  std::vector<int64_t> pos = b.to_vector<int64_t>(), neg = lsh_buckets(ops::neg(k), bits, R, g3).to_vector<int64_t>();
  for (size_t i = 0; i < pos.size(); ++i) EXPECT_EQ(neg[i], (pos[i] + bits) % (2 * bits)) << i;
  // One rotation per round for every batch element and head: equal keys share a bucket.
  Tensor same = k.narrow(0, 0, 1).narrow(1, 0, 1).expand({B, H, N, E}).contiguous();
  Tensor bs = lsh_buckets(same, bits, R, g4);
  for (int64_t r = 0; r < R; ++r)
    EXPECT_EQ(ops::max_abs_diff(bs.select(0, r), bs.select(0, r).narrow(0, 0, 1).narrow(1, 0, 1).expand({B, H, N})), 0.0);
  // Rounds use different rotations; the generator advances, so the next call hashes afresh.
  EXPECT_GT(ops::max_abs_diff(b.select(0, 0), b.select(0, 1)), 0.0);
  EXPECT_GT(ops::max_abs_diff(lsh_buckets(k, bits, R, g1), b), 0.0);
  // Buckets are used: 2·bits = 10 buckets over 50 random keys.
  std::vector<int64_t> first = b.select(0, 0).contiguous().to_vector<int64_t>();
  std::sort(first.begin(), first.end());
  EXPECT_GE(std::unique(first.begin(), first.end()) - first.begin(), 6);
}

// --- the bucketed attention against the dense reference ------------------------------------------

TEST(NnAttentionReformer, BucketedAttentionEqualsDenseReference) {
  const int64_t B = 2, H = 2, N = 13, E = 4, M = 3, R = 3;
  Generator gen(3);
  Var q = random_var({B, H, N, E}, gen, DType::f64, true, -2, 2), v = random_var({B, H, N, M}, gen);
  // Few buckets so that chunks mix buckets and ties by position matter.
  Tensor buckets = ops::randint({R, B, H, N}, 0, 3, gen);
  const std::vector<std::pair<std::string, AttentionMasks>> cases = {
      {"full", AttentionMasks::full()},
      {"causal", AttentionMasks::causal()},
      {"full+lengths", AttentionMasks::full().with_key_lengths(lengths_of({N, 8}))},
      {"causal+lengths", AttentionMasks::causal().with_key_lengths(lengths_of({5, 0}))}};
  for (int64_t chunk : {3, 4, 13, 40}) {  // 13 = 4·3 + 1 and 13 = 3·4 + 1: the last chunk is padded
    for (bool masked : {true, false}) {
      for (auto combine : {LshOptions::Combine::mean, LshOptions::Combine::lse}) {
        LshOptions o;
        o.chunk_size = chunk;
        o.masked = masked;
        o.combine = combine;
        if (chunk == 4) o.softmax_temp = 0.7;
        for (const auto& [name, masks] : cases) {
          Generator unused(0);
          const std::string what = fmt::format("chunk {} masked {} {} {}", chunk, masked,
                                               combine == LshOptions::Combine::lse ? "lse" : "mean", name);
          expect_same_values_and_grads(lsh_attention(q, v, masks, buckets, o, unused, false),
                                       dense_reference(q, v, masks, buckets, o), {q, v}, gen, what);
        }
      }
    }
  }
}

TEST(NnAttentionReformer, GradcheckWithFixedBuckets) {
  const int64_t B = 2, H = 1, N = 7, E = 3, M = 2, R = 2;
  Generator gen(4);
  Tensor q = Tensor::uniform({B, H, N, E}, gen, -1, 1, DType::f64), v = Tensor::uniform({B, H, N, M}, gen, -1, 1, DType::f64);
  Tensor buckets = ops::randint({R, B, H, N}, 0, 3, gen);
  for (auto combine : {LshOptions::Combine::mean, LshOptions::Combine::lse}) {
    LshOptions o;
    o.chunk_size = 2;
    o.combine = combine;
    for (const AttentionMasks& masks :
         {AttentionMasks::full(), AttentionMasks::causal().with_key_lengths(lengths_of({N, 4}))}) {
      Generator unused(0);
      GradcheckResult r = gradcheck(
          [&](const std::vector<Var>& x) { return lsh_attention(x[0], x[1], masks, buckets, o, unused, false); }, {q, v});
      EXPECT_TRUE(r.ok) << masks.describe() << ": " << r.message;
    }
  }
}

// --- properties through the registry -------------------------------------------------------------

// With one chunk covering the sequence and no self mask, every query sees every admissible key,
// whatever the hashing: shared-QK softmax attention, i.e. "softmax" with keys = q/‖q‖.
TEST(NnAttentionReformer, FullWindowEqualsSharedQKSoftmax) {
  const int64_t B = 2, H = 2, N = 16, E = 5, M = 3;
  Generator gen(5);
  Var q = random_var({B, H, N, E}, gen, DType::f64, true, -2, 2), v = random_var({B, H, N, M}, gen);
  Var k_ignored = random_var({B, H, N, E}, gen);
  auto softmax_attn = builtin_attention_registry().create(
      "softmax", {{"attention_dropout", 0.0}}, AttentionContext{.query_dim = E, .value_dim = M, .n_heads = H});
  softmax_attn->eval();
  const std::vector<AttentionMasks> cases = {AttentionMasks::full(), AttentionMasks::causal(),
                                             AttentionMasks::full().with_key_lengths(lengths_of({N, 9})),
                                             AttentionMasks::causal().with_key_lengths(lengths_of({3, N}))};
  for (const AttentionMasks& masks : cases) {
    for (int64_t chunk : {16, 32}) {
      for (int64_t rounds : {1, 4}) {
        for (const char* combine : {"mean", "lse"}) {
          auto attn = make({{"chunk_size", chunk},
                            {"rounds", rounds},
                            {"masked", false},
                            {"bits", int64_t(4)},
                            {"combine", std::string(combine)}},
                           E, M);
          Var want = softmax_attn->forward(q, normalize_rows(q), v, masks);
          expect_same_values_and_grads(attn->forward(q, k_ignored, v, masks), want, {q, v}, gen,
                                       fmt::format("{}, chunk {}, {} rounds, {}", masks.describe(), chunk, rounds,
                                                   combine));
        }
      }
    }
  }
}

TEST(NnAttentionReformer, SelfMaskFallsBackToSelf) {
  const int64_t B = 1, H = 2, N = 9, E = 4, M = 3;
  Generator gen(6);
  Var q = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make({{"chunk_size", int64_t(4)}, {"bits", int64_t(2)}}, E, M);
  Tensor y = attn->forward(q, q, v, AttentionMasks::causal()).data();
  // Position 0 sees only itself under the causal mask; the −1e9 is finite, so it attends to itself.
  EXPECT_LE(ops::max_abs_diff(y.narrow(2, 0, 1), v.data().narrow(2, 0, 1)), 1e-12);
  EXPECT_TRUE(ops::all_finite(y));
  // A zero query is a zero key: still finite.
  Tensor q0 = q.data().clone();
  q0.narrow(2, 3, 1).fill_(0.0);
  EXPECT_TRUE(ops::all_finite(attn->forward(Var(q0), Var(q0), v, AttentionMasks::full()).data()));
}

TEST(NnAttentionReformer, HashingIsFreshOnEveryCallAndDropoutOnlyInTraining) {
  const int64_t B = 1, H = 2, N = 64, E = 8, M = 4;
  Generator gen(7);
  Var q = random_var({B, H, N, E}, gen), v = random_var({B, H, N, M}, gen);
  auto attn = make({{"chunk_size", int64_t(8)}, {"bits", int64_t(4)}, {"attention_dropout", 0.0}}, E, M);
  // Eval mode still hashes with new rotations on every call (as the paper's code).
  EXPECT_GT(ops::max_abs_diff(attn->forward(q, q, v, {}).data(), attn->forward(q, q, v, {}).data()), 1e-6);
  // The layer's generator decides everything: restoring its state repeats the output exactly.
  auto with_dropout = make({{"chunk_size", int64_t(8)}, {"attention_dropout", 0.5}}, E, M);
  with_dropout->train();
  Generator* g = with_dropout->named_generators()[0].second;
  const GeneratorState s = g->state();
  Tensor t1 = with_dropout->forward(q, q, v, {}).data();
  g->set_state(s);
  EXPECT_EQ(ops::max_abs_diff(with_dropout->forward(q, q, v, {}).data(), t1), 0.0);
  g->set_state(s);
  with_dropout->eval();
  EXPECT_GT(ops::max_abs_diff(with_dropout->forward(q, q, v, {}).data(), t1), 1e-3) << "dropout must be off in eval";
}

// --- memory --------------------------------------------------------------------------------------

// Peak bytes held by tensors during forward + backward at the paper's settings (chunk 32, 64
// buckets, 4 rounds), float32.
int64_t peak_bytes(int64_t N, int64_t H, double* seconds) {
  const int64_t E = 32;
  Generator gen(8);
  Var q(Tensor::normal({1, H, N, E}, gen), true), v(Tensor::normal({1, H, N, E}, gen), true);
  auto attn = make({}, E, E);
  auto& alloc = CpuAllocator::instance();
  alloc.reset_peak();
  const int64_t before = alloc.stats().in_use_bytes;
  const auto t0 = std::chrono::steady_clock::now();
  {
    Var y = attn->forward(q, q, v, AttentionMasks::causal());
    sum(y).backward();
  }
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(ops::all_finite(q.grad()));
  return alloc.stats().peak_bytes - before;
}

TEST(NnAttentionReformer, PeakMemoryIsLinearInN) {
  const int64_t H = 2, N = 16384;
  double t_small = 0, t_big = 0;
  const int64_t small = peak_bytes(N / 4, H, &t_small);
  const int64_t big = peak_bytes(N, H, &t_big);
  const double softmax_matrix = double(N) * double(N) * 4.0 * double(H);  // the attention matrix alone
  std::printf("reformer peak (forward + backward, B=1, H=%lld, E=32, 4 rounds, chunk 32): N=%lld %.1f MiB (%.2f s), "
              "N=%lld %.1f MiB (%.2f s); softmax's N² matrix at N=%lld: %.0f MiB\n",
              (long long)H, (long long)(N / 4), small / 1048576.0, t_small, (long long)N, big / 1048576.0, t_big,
              (long long)N, softmax_matrix / 1048576.0);
  RecordProperty("peak_bytes_N16384", std::to_string(big));
  EXPECT_LT(double(big), softmax_matrix / 10);
  EXPECT_LT(double(big), 6.0 * double(small)) << "4× the length should cost about 4× the memory";
}


// A training sequence that fits in one chunk makes LSH pointless (every query sees every earlier
// key): the variant says so once, and stays silent for sequences of several chunks and in eval mode
// (generation recomputes short prefixes on purpose).
TEST(NnAttentionReformer, WarnsOnceWhenATrainingSequenceFitsInOneChunk) {
  Generator gen(3);
  auto attn = make({{"chunk_size", int64_t(8)}}, 4, 4);
  attn->train();
  auto run = [&](int64_t n) {
    Var q = random_var({1, 2, n, 4}, gen), v = random_var({1, 2, n, 4}, gen);
    ::testing::internal::CaptureStderr();
    attn->forward(q, q, v, AttentionMasks::causal());
    return ::testing::internal::GetCapturedStderr();
  };
  EXPECT_EQ(run(32), "");  // four chunks
  const std::string once = run(8);
  EXPECT_HAS(once, "a sequence of 8 tokens fits in one chunk of chunk_size 8");
  EXPECT_HAS(once, "shared-QK softmax");
  EXPECT_EQ(run(6), "");  // said once
  auto quiet = make({{"chunk_size", int64_t(8)}}, 4, 4);
  quiet->eval();
  Var q = random_var({1, 2, 5, 4}, gen), v = random_var({1, 2, 5, 4}, gen);
  ::testing::internal::CaptureStderr();
  quiet->forward(q, q, v, AttentionMasks::causal());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace lintra::nn
