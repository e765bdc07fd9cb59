// cpu/lsh_plan.cpp — one hash round of reformer attention (core/kernels.h lsh_plan; the math and the
// layout in nn/attention/reformer_attention.cpp). Per (b, h):
//   sort     a counting sort of the positions by (bucket, position), stable; positions ≥ the key
//            length take one extra last key, so they sort after every bucket; O(N + buckets)
//   rows     query_rows[slot] and scatter[position] (its inverse), fill slots read row bh·N
//   windows  chunk c's window column w is slot c·C + w (one chunk) or, with W = 2C, the previous
//            chunk's slot (c − 1)·C + w for w < C (none for chunk 0) and then chunk c's slots
//   masks    additive = −inf for a missing or padded key or (causal) a later position, self_logit for
//            the query itself when `masked`, else 0; a row with nothing admissible is all 0 and gets
//            row_ok = 0. O(nc·C·W)
// OpenMP over (b, h); scratch O(N + buckets) per (b, h).
#include <algorithm>
#include <limits>
#include <vector>

#include "core/cpu/team_loop.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

namespace {

struct PlanShape {
  int64_t H, N, BH, nc, C, W, Np;
};

// perm (Np): the position in each sorted slot (−1 for fill slots); writes scatter and query_rows.
std::vector<int64_t> sort_round(const int64_t* bk, int64_t len, int64_t n_keys, const PlanShape& g, int64_t bh,
                                int64_t* scatter, int64_t* query_rows) {
  std::vector<int64_t> start(size_t(n_keys + 1), 0), perm(size_t(g.Np), -1);
  auto key_of = [&](int64_t j) { return j < len ? bk[j] : n_keys - 1; };
  for (int64_t j = 0; j < g.N; ++j) ++start[size_t(key_of(j) + 1)];
  for (int64_t k = 0; k < n_keys; ++k) start[size_t(k + 1)] += start[size_t(k)];
  for (int64_t j = 0; j < g.N; ++j) {
    const int64_t slot = start[size_t(key_of(j))]++;
    perm[size_t(slot)] = j;
    scatter[bh * g.N + j] = bh * g.Np + slot;
  }
  for (int64_t t = 0; t < g.Np; ++t) query_rows[bh * g.Np + t] = bh * g.N + std::max<int64_t>(perm[size_t(t)], 0);
  return perm;
}

// The window of chunk c (key positions, −1 for none) and its masks; writes window_rows.
template <typename T>
void chunk_masks(const std::vector<int64_t>& perm, int64_t len, int64_t bh, int64_t c, const PlanShape& g,
                 bool causal, bool masked, T self_logit, int64_t* window_rows, T* additive, T* ok) {
  int64_t* wr = window_rows + (bh * g.nc + c) * g.W;
  for (int64_t w = 0; w < g.W; ++w) {
    int64_t slot;  // the key slot of window column w (−1: chunk 0 has no previous chunk)
    if (g.W == g.C) slot = c * g.C + w;
    else if (w < g.C) slot = c == 0 ? -1 : (c - 1) * g.C + w;
    else slot = c * g.C + (w - g.C);
    wr[w] = slot < 0 ? -1 : perm[size_t(slot)];
  }
  const T minus_inf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < g.C; ++i) {
    const int64_t qp = perm[size_t(c * g.C + i)];
    T* m = additive + ((bh * g.nc + c) * g.C + i) * g.W;
    int64_t admissible = 0;
    for (int64_t w = 0; w < g.W; ++w) {
      const int64_t kp = wr[w];
      const bool allowed = kp >= 0 && kp < len && !(causal && kp > qp);
      admissible += allowed;
      m[w] = !allowed ? minus_inf : (masked && kp == qp ? self_logit : T(0));
    }
    ok[(bh * g.nc + c) * g.C + i] = admissible > 0 ? T(1) : T(0);
    if (admissible == 0) std::fill(m, m + g.W, T(0));  // no NaN from an all −∞ row; row_ok zeroes it
  }
  for (int64_t w = 0; w < g.W; ++w) wr[w] = bh * g.N + std::max<int64_t>(wr[w], 0);
}

}  // namespace

void lsh_plan(const Tensor& buckets_in, const Tensor& lengths_in, bool causal, bool masked, double self_logit,
              Tensor& query_rows, Tensor& window_rows, Tensor& scatter, Tensor& additive, Tensor& row_ok) {
  const Tensor buckets = buckets_in.contiguous(), lengths = lengths_in.contiguous();
  const PlanShape g{buckets.size(1), buckets.size(2), additive.size(0), additive.size(1),
                    additive.size(2), additive.size(3), additive.size(1) * additive.size(2)};
  const int64_t* bp = buckets.data<int64_t>();
  const int64_t* lp = lengths.data<int64_t>();
  const int64_t n_keys = g.BH * g.N == 0 ? 1 : *std::max_element(bp, bp + g.BH * g.N) + 2;  // + padded keys
  int64_t* qr = query_rows.data<int64_t>();
  int64_t* wr = window_rows.data<int64_t>();
  int64_t* sc = scatter.data<int64_t>();
  dispatch_float(additive.dtype(), "lsh_plan", [&]<typename T>() {
    T* add = additive.data<T>();
    T* ok = row_ok.data<T>();
    team_for(g.BH, g.BH * g.Np * g.W > 32768, [&](int64_t bh) {
      const int64_t len = lp[bh / g.H];
      const std::vector<int64_t> perm = sort_round(bp + bh * g.N, len, n_keys, g, bh, sc, qr);
      for (int64_t c = 0; c < g.nc; ++c) chunk_masks<T>(perm, len, bh, c, g, causal, masked, T(self_logit), wr, add, ok);
    });
  });
}

}  // namespace lintra::kernels::cpu
