// reformer_attention.cpp — "reformer": LSH attention as the paper's code implements it (the lsh-1 and
// lsh-4 rows; PAPER.md §4.4 and §5), written from autograd ops and never forming an N×N matrix.
//
// Per batch element and head, for hash rounds r = 1…R:
//   keys     k_j = q_j / ‖q_j‖. Shared QK: the `keys` argument of forward() is IGNORED (as the paper's
//            code); the queries stay unnormalised. Hence N must equal S (no cross-attention).
//   hash     h_r(j) = argmax([k_j·Rot_r ; −k_j·Rot_r]) ∈ [0, 2·bits), Rot_r ~ N(0, 1)^{E×bits} drawn
//            afresh from the layer's generator on every call (also in eval, as the paper's code),
//            shared over batch and heads. Not differentiable.
//   sort     π_r orders the positions by (h_r(j), j): a counting sort, stable, so ties keep position
//            order (the paper's code uses an unstable argsort on the bucket alone). Positions past a
//            key length sort after every bucket, so they take no slot in a chunk of real tokens (the
//            paper's code zeroes their keys, which hashes them all into bucket 0 among real tokens).
//   chunks   the sorted sequence is cut into chunks of C = min(chunk_size, N) slots; when C does not
//            divide N the last chunk is filled with padding slots (never attended, outputs dropped).
//            A chunk attends to itself and the chunk before; chunk 0 has no previous chunk (no
//            wrap-around). With one chunk the window is the chunk itself.
//   logits   z_ij = τ·q_i·k_j (τ = softmax_temp, default 1/√E) for the slots j in i's window, plus
//              −∞   where j is a padding slot, a padded key (j ≥ key length), or, under the causal
//                   mask, a later original position than i;
//              −1e9 where j is i itself and `masked` (finite: a query with nothing else admissible
//                   attends to itself, as the paper's code);
//            a row with no admissible key (all keys padded) outputs 0.
//   round    o_r(i) = Σ_j softmax_j(z_ij)·v_j (attention dropout on the weights), ℓ_r(i) = logsumexp_j z_ij,
//            scattered back to the original order with π_r⁻¹.
//   combine  "mean": o = (1/R)·Σ_r o_r                (the paper's code, the default)
//            "lse" : o = Σ_r softmax_r(ℓ_r(i))·o_r    (the Reformer paper's weighting, without its
//                                                     duplicate-count correction)
// Masks are built per chunk from the gathered positions, never as an N×N matrix.
//
// Layout per round: one counting sort gives, for every (b, h), the sorted order; q is gathered into
// chunks (BH, nc, C, E) and k, v into windows (BH, nc, W, ·), W = 2C (C with one chunk), by
// index_select with row indices, so the look-back needs no pad/cat copies. The logits and the masked
// softmax are one node (the (BH, nc, C, W) logits are not kept for backward, only the weights);
// everything else is autograd ops (index_select, reshape, matmul, dropout, softmax over rounds).
//
// Cost per head: hashing O(R·N·E·bits); sort O(R·(N + 2·bits)); attention O(R·N·2C·(E + M)) time and
// O(R·N·(2C + 3E + 3M)) memory kept for backward (weights, gathered q, windows of k and v) — linear
// in N for a fixed chunk size. No recurrent form: generation recomputes the prefix, as in the paper's
// protocol.
#include "nn/attention/reformer_attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/functional.h"
#include "nn/attention/registry.h"

namespace lintra::nn {

namespace {

constexpr double kSelfLogit = -1e9;  // the paper's code: a finite penalty on attending to oneself
constexpr double kEmptyLse = -1e30;  // ℓ of a row with no admissible key: weight 0 under "lse"
constexpr double kNormFloor = 1e-20;  // added to ‖q‖² so that a zero query gives a zero key

// What one hash round needs besides the values: where each sorted slot and each window column
// reads from, where each position's output sits, and the chunk masks. Rows that are never admissible
// (padding slots, chunk 0's missing previous chunk) read row bh·N, a real row: it is masked, so it
// contributes neither to values nor to gradients.
struct RoundPlan {
  Tensor query_rows;   // i64 (BH·Np): row of (BH·N) for each sorted slot
  Tensor window_rows;  // i64 (BH·nc·W): row of (BH·N) for each window column of each chunk
  Tensor scatter;      // i64 (BH·N): sorted slot (of BH·Np) holding each original position
  Tensor additive;     // (BH, nc, C, W): 0, −inf or kSelfLogit; all 0 on rows with nothing admissible
  Tensor row_ok;       // (BH, nc, C, 1): 1/0; undefined when every row has an admissible key
};

struct Geometry {
  int64_t B, H, N, BH, C, nc, Np, W;
};

// buckets: int64 (BH·N) of one round, ≥ 0; lengths: the key length per batch element.
RoundPlan plan_round(const int64_t* buckets, const Geometry& g, const std::vector<int64_t>& lengths, bool causal,
                     bool masked, DType dtype) {
  const int64_t n_keys = *std::max_element(buckets, buckets + g.BH * g.N) + 2;  // + one key for padded keys
  RoundPlan p;
  p.query_rows = Tensor::empty({g.BH * g.Np}, DType::i64);
  p.window_rows = Tensor::empty({g.BH * g.nc * g.W}, DType::i64);
  p.scatter = Tensor::empty({g.BH * g.N}, DType::i64);
  p.additive = Tensor::empty({g.BH, g.nc, g.C, g.W}, dtype);
  Tensor row_ok = Tensor::empty({g.BH, g.nc, g.C, 1}, dtype);
  int64_t* query_rows = p.query_rows.data<int64_t>();
  int64_t* window_rows = p.window_rows.data<int64_t>();
  int64_t* scatter = p.scatter.data<int64_t>();
  bool any_empty = false;
  dispatch_float(dtype, "reformer attention", [&]<typename T>() {
    bool empty_rows = false;
    T* additive = p.additive.data<T>();
    T* ok = row_ok.data<T>();
    const T minus_inf = -std::numeric_limits<T>::infinity();
#pragma omp parallel for schedule(static) reduction(|| : empty_rows) if (g.BH * g.Np * g.W > 32768)
    for (int64_t bh = 0; bh < g.BH; ++bh) {
      const int64_t len = lengths[size_t(bh / g.H)];
      const int64_t* bk = buckets + bh * g.N;
      // Counting sort by (bucket, position): stable, so equal buckets keep position order. Padded
      // keys take the last key; the Np − N fill slots at the end hold −1.
      std::vector<int64_t> start(size_t(n_keys + 1), 0), perm(size_t(g.Np), -1);
      auto key_of = [&](int64_t j) { return j < len ? bk[j] : n_keys - 1; };
      for (int64_t j = 0; j < g.N; ++j) ++start[size_t(key_of(j) + 1)];
      for (int64_t k = 0; k < n_keys; ++k) start[size_t(k + 1)] += start[size_t(k)];
      for (int64_t j = 0; j < g.N; ++j) {
        const int64_t slot = start[size_t(key_of(j))]++;
        perm[size_t(slot)] = j;
        scatter[bh * g.N + j] = bh * g.Np + slot;
      }
      auto row_of = [&](int64_t position) { return bh * g.N + std::max<int64_t>(position, 0); };
      for (int64_t t = 0; t < g.Np; ++t) query_rows[bh * g.Np + t] = row_of(perm[size_t(t)]);
      // Chunk windows and masks from the gathered positions.
      for (int64_t c = 0; c < g.nc; ++c) {
        int64_t* wr = window_rows + (bh * g.nc + c) * g.W;
        for (int64_t w = 0; w < g.W; ++w) {
          int64_t slot;  // the key slot of window column w (−1: chunk 0 has no previous chunk)
          if (g.W == g.C) slot = c * g.C + w;
          else if (w < g.C) slot = c == 0 ? -1 : (c - 1) * g.C + w;
          else slot = c * g.C + (w - g.C);
          wr[w] = slot < 0 ? -1 : perm[size_t(slot)];  // the key's position for now; rows below
        }
        for (int64_t i = 0; i < g.C; ++i) {
          const int64_t qp = perm[size_t(c * g.C + i)];
          T* m = additive + ((bh * g.nc + c) * g.C + i) * g.W;
          int64_t admissible = 0;
          for (int64_t w = 0; w < g.W; ++w) {
            const int64_t kp = wr[w];
            const bool allowed = kp >= 0 && kp < len && !(causal && kp > qp);
            admissible += allowed;
            m[w] = !allowed ? minus_inf : (masked && kp == qp ? T(kSelfLogit) : T(0));
          }
          ok[(bh * g.nc + c) * g.C + i] = admissible > 0 ? T(1) : T(0);
          if (admissible == 0) {
            empty_rows = true;
            std::fill(m, m + g.W, T(0));  // no NaN from an all −∞ row; the row is zeroed afterwards
          }
        }
        for (int64_t w = 0; w < g.W; ++w) wr[w] = row_of(wr[w]);
      }
    }
    any_empty = empty_rows;
  });
  if (any_empty) p.row_ok = row_ok;
  return p;
}

// The attention weights of one round, y = softmax_w(τ·qs·kwinᵀ + additive) with rows that have
// nothing admissible set to 0, and optionally ℓ = logsumexp_w of the same logits (kEmptyLse on empty
// rows). One node from (qs, kwin) rather than matmul → softmax, so that the (BH, nc, C, W) logits are
// not kept for backward (only y is). With Z the logits:
//   y:  dZ = y ∘ (G − Σ_w G∘y)     ℓ:  dZ = y ∘ g_ℓ      then  dqs = τ·dZ·kwin,  dkwin = τ·dZᵀ·qs
struct ChunkSoftmax {
  Var weights;  // (BH, nc, C, W)
  Var lse;      // (BH, nc, C, 1), undefined unless asked for
};

std::vector<Tensor> logit_grads(const Tensor& qs, const Tensor& kwin, const Tensor& dz, double tau) {
  const Tensor ds = ops::mul(dz, tau);
  return {ops::matmul(ds, kwin), ops::matmul(ds.transpose(-1, -2), qs)};
}

ChunkSoftmax chunk_softmax(const Var& qs, const Var& kwin, double tau, const RoundPlan& plan, bool want_lse) {
  const Tensor z = ops::add(ops::mul(ops::matmul(qs.data(), kwin.data().transpose(-1, -2)), tau), plan.additive);
  Tensor y = ops::softmax(z, -1);
  if (plan.row_ok.defined()) y = ops::mul(y, plan.row_ok);
  ChunkSoftmax out;
  out.weights = make_result(y, "lsh_chunk_softmax", {qs, kwin}, {qs.data(), kwin.data(), y},
                            [tau](const std::vector<Tensor>& s, const Tensor& g) {
                              return logit_grads(s[0], s[1], ops::softmax_backward(s[2], g, -1, false), tau);
                            });
  if (want_lse) {
    Tensor l = ops::logsumexp(z, {-1}, true);
    if (plan.row_ok.defined())
      l = ops::add(ops::mul(l, plan.row_ok), ops::mul(ops::rsub(1.0, plan.row_ok), kEmptyLse));
    out.lse = make_result(l, "lsh_chunk_logsumexp", {qs, kwin}, {qs.data(), kwin.data(), y},
                          [tau](const std::vector<Tensor>& s, const Tensor& g) {
                            return logit_grads(s[0], s[1], ops::mul(s[2], g), tau);
                          });
  }
  return out;
}

Tensor normalize_rows_tensor(const Tensor& q) {
  return ops::mul(q, ops::rsqrt(ops::add(ops::sum(ops::square(q), {-1}, true), kNormFloor)));
}

}  // namespace

Var normalize_rows(const Var& q) { return mul(q, rsqrt(add(sum(square(q), {-1}, true), kNormFloor))); }

Tensor lsh_buckets(const Tensor& keys, int64_t bits, int64_t rounds, Generator& gen) {
  LINTRA_CHECK(keys.dim() == 4 && is_floating(keys.dtype()), "lsh_buckets: keys must be floating (B, H, N, E), got {}",
               keys.describe());
  LINTRA_CHECK(bits >= 1 && rounds >= 1, "lsh_buckets: bits and rounds must be ≥ 1, got {} and {}", bits, rounds);
  const int64_t B = keys.size(0), H = keys.size(1), N = keys.size(2), E = keys.size(3), rows = B * H * N;
  const Tensor rot = Tensor::normal({E, rounds * bits}, gen, 0, 1, keys.dtype());
  const Tensor proj = ops::matmul(keys.reshape({rows, E}), rot).contiguous();  // (rows, R·bits)
  Tensor buckets = Tensor::empty({rounds, B, H, N}, DType::i64);
  int64_t* out = buckets.data<int64_t>();
  dispatch_float(keys.dtype(), "lsh_buckets", [&]<typename T>() {
    const T* p = proj.data<T>();
#pragma omp parallel for schedule(static) if (rows * rounds * bits > 65536)
    for (int64_t n = 0; n < rows; ++n) {
      for (int64_t r = 0; r < rounds; ++r) {
        // argmax over [p ; −p]: the first coordinate of largest |p_b|, +bits when it is negative.
        const T* pr = p + n * rounds * bits + r * bits;
        int64_t best = 0;
        T best_value = pr[0];
        for (int64_t b = 0; b < bits; ++b) {
          if (pr[b] > best_value) best = b, best_value = pr[b];
        }
        for (int64_t b = 0; b < bits; ++b) {
          if (-pr[b] > best_value) best = bits + b, best_value = -pr[b];
        }
        out[r * rows + n] = best;
      }
    }
  });
  return buckets;
}

Var lsh_attention(const Var& q, const Var& v, const AttentionMasks& masks, const Tensor& buckets,
                  const LshOptions& options, Generator& gen, bool training) {
  LINTRA_CHECK(q.dim() == 4 && v.dim() == 4 && q.size(0) == v.size(0) && q.size(1) == v.size(1) &&
                   q.size(2) == v.size(2),
               "lsh_attention: expected q (B, H, N, E) and v (B, H, N, M), got {} and {}", shape_str(q.shape()),
               shape_str(v.shape()));
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2), E = q.size(3), M = v.size(3);
  LINTRA_CHECK(buckets.dtype() == DType::i64 && buckets.dim() == 4 && buckets.size(0) >= 1 && buckets.size(1) == B &&
                   buckets.size(2) == H && buckets.size(3) == N,
               "lsh_attention: buckets must be int64 (R, {}, {}, {}), got {}", B, H, N, buckets.describe());
  LINTRA_CHECK(options.chunk_size >= 1, "lsh_attention: chunk_size must be ≥ 1, got {}", options.chunk_size);
  if (N == 0 || B * H == 0) return Var(Tensor::zeros({B, H, N, M}, v.dtype()));
  const Tensor bk = buckets.contiguous();
  const int64_t R = bk.size(0);
  const int64_t* bp = bk.data<int64_t>();
  const auto [lo, hi] = std::minmax_element(bp, bp + bk.numel());
  LINTRA_CHECK(*lo >= 0 && *hi < (int64_t(1) << 24), "lsh_attention: bucket ids must lie in [0, 2^24), got [{}, {}]",
               *lo, *hi);

  Geometry g{};
  g.B = B, g.H = H, g.N = N, g.BH = B * H;
  g.C = std::min(options.chunk_size, N);
  g.nc = (N + g.C - 1) / g.C;
  g.Np = g.nc * g.C;
  g.W = g.nc > 1 ? 2 * g.C : g.C;

  std::vector<int64_t> lengths(size_t(B), N);
  if (masks.has_key_lengths()) {
    const Tensor len = masks.key_lengths.contiguous();
    LINTRA_CHECK(len.dtype() == DType::i64 && len.numel() == B, "lsh_attention: key lengths must be int64 ({})", B);
    for (int64_t b = 0; b < B; ++b) {
      lengths[size_t(b)] = len.data<int64_t>()[b];
      LINTRA_CHECK(lengths[size_t(b)] >= 0 && lengths[size_t(b)] <= N, "lsh_attention: key length {} outside [0, {}]",
                   lengths[size_t(b)], N);
    }
  }
  const double tau = options.softmax_temp ? *options.softmax_temp : 1.0 / std::sqrt(double(E));
  const bool want_lse = options.combine == LshOptions::Combine::lse && R > 1;

  // The rows every round gathers from: q, k = q/‖q‖ and v as (BH·N, ·) views.
  const Var q_rows = reshape(q, {g.BH * N, E});
  const Var k_rows = reshape(normalize_rows(q), {g.BH * N, E});
  const Var v_rows = reshape(v, {g.BH * N, M});

  std::vector<Var> outs, lses;
  for (int64_t r = 0; r < R; ++r) {
    const RoundPlan plan = plan_round(bp + r * g.BH * N, g, lengths, masks.is_causal(), options.masked, q.dtype());
    const Var qs = reshape(index_select(q_rows, 0, plan.query_rows), {g.BH, g.nc, g.C, E});
    const Var kwin = reshape(index_select(k_rows, 0, plan.window_rows), {g.BH, g.nc, g.W, E});
    const Var vwin = reshape(index_select(v_rows, 0, plan.window_rows), {g.BH, g.nc, g.W, M});
    ChunkSoftmax sm = chunk_softmax(qs, kwin, tau, plan, want_lse);
    const Var a = dropout(sm.weights, options.attention_dropout, gen, training);
    const Var o = matmul(a, vwin);  // (BH, nc, C, M)
    outs.push_back(index_select(reshape(o, {g.BH * g.Np, M}), 0, plan.scatter));  // (BH·N, M)
    if (want_lse) lses.push_back(index_select(reshape(sm.lse, {g.BH * g.Np, 1}), 0, plan.scatter));
  }

  Var out;
  if (R == 1) {
    out = outs[0];
  } else if (want_lse) {
    const Var w = softmax(cat(lses, 1), 1);  // (BH·N, R): each round's share of a query's output
    for (int64_t r = 0; r < R; ++r) {
      Var term = mul(narrow(w, 1, r, 1), outs[size_t(r)]);
      out = r == 0 ? term : add(out, term);
    }
  } else {
    for (int64_t r = 0; r < R; ++r) out = r == 0 ? outs[0] : add(out, outs[size_t(r)]);
    out = mul(out, 1.0 / double(R));
  }
  return reshape(out, {B, H, N, M});
}

namespace {

class ReformerAttention : public InnerAttention {
 public:
  ReformerAttention(int64_t bits, int64_t rounds, LshOptions options, Generator gen)
      : InnerAttention("reformer"), bits_(bits), rounds_(rounds), options_(std::move(options)), gen_(gen) {
    register_generator("generator", &gen_);
  }

  MaskSupport mask_support() const override {
    return {.full = true,
            .causal = true,
            .key_lengths = true,
            .cross_attention = false,
            .hint = "reformer shares queries and keys"};
  }
  std::string extra_repr() const override {
    return fmt::format("chunk_size={}, bits={} ({} buckets), rounds={}, masked={}, softmax_temp={}, "
                       "attention_dropout={:g}, combine={}",
                       options_.chunk_size, bits_, 2 * bits_, rounds_, options_.masked,
                       options_.softmax_temp ? fmt::format("{:g}", *options_.softmax_temp) : "1/sqrt(E)",
                       options_.attention_dropout, options_.combine == LshOptions::Combine::lse ? "lse" : "mean");
  }

 protected:
  // k is ignored: the keys are the normalised queries (shared QK), as in the paper's code.
  Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) override {
    LINTRA_CHECK(q.size(2) == k.size(2), "attention 'reformer' needs as many queries as keys, got N={} and S={}",
                 q.size(2), k.size(2));
    if (is_training()) warn_if_one_chunk(q.size(2));
    const Tensor buckets = lsh_buckets(normalize_rows_tensor(q.data()), bits_, rounds_, gen_);
    return lsh_attention(q, v, masks, buckets, options_, gen_, is_training());
  }

 private:
  // A training sequence that fits in one chunk sees every earlier key whatever the hashing: the
  // variant is then shared-QK softmax, not LSH. Said once per layer (generation recomputes prefixes
  // shorter than a chunk on purpose, in eval mode: no warning there).
  void warn_if_one_chunk(int64_t n) {
    if (warned_ || n > options_.chunk_size) return;
    warned_ = true;
    fmt::print(stderr,
               "lintra: warning: reformer: a sequence of {} tokens fits in one chunk of chunk_size {}: every query "
               "attends to every earlier key, so hashing changes nothing (this is shared-QK softmax attention, "
               "not LSH); choose chunk_size at most N/4 for at least four chunks\n",
               n, options_.chunk_size);
  }

  bool warned_ = false;
  int64_t bits_, rounds_;
  LshOptions options_;
  Generator gen_;
};

}  // namespace

void register_reformer_attention(AttentionRegistry& registry) {
  registry.add(
      "reformer",
      [](const AttentionParams& p, const AttentionContext& ctx) {
        LshOptions o;
        o.chunk_size = p.get_int("chunk_size");
        o.masked = p.get_bool("masked");
        if (p.has("softmax_temp")) o.softmax_temp = p.get_double("softmax_temp");
        o.attention_dropout = p.get_double("attention_dropout");
        o.combine = p.get_string("combine") == "lse" ? LshOptions::Combine::lse : LshOptions::Combine::mean;
        return std::make_shared<ReformerAttention>(p.get_int("bits"), p.get_int("rounds"), o, ctx.generator);
      },
      {{"chunk_size", ParamSpec::integer(32, 1, 1 << 20, "queries per chunk; a chunk attends to itself and the one before")},
       {"bits", ParamSpec::integer(32, 1, 1 << 16, "random rotation width: 2·bits hash buckets")},
       {"rounds", ParamSpec::integer(4, 1, 1024, "hash rounds (lsh-1, lsh-4)")},
       {"masked", ParamSpec::boolean(true, "forbid attending to oneself unless nothing else is admissible")},
       {"softmax_temp", ParamSpec::optional_real(0, INFINITY, "scale of q·k; 1/sqrt(E) when absent")},
       {"attention_dropout", ParamSpec::real(0.1, 0, 1, "dropout on the chunk attention weights").exclusive_max()},
       {"combine", ParamSpec::string("mean", {"mean", "lse"},
                                     "rounds: plain mean (the paper's code) or logsumexp weights (Reformer)")}},
      "LSH attention (Reformer) as the paper's code: shared QK (the keys argument is ignored), random-rotation "
      "hashing, chunked attention; masks: full, causal, key lengths; self-attention only (N = S)");
}

}  // namespace lintra::nn
