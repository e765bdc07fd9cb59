// reference/lsh_plan.cpp — reformer's plan of one hash round (core/kernels.h lsh_plan) the obvious way:
// per (b, h) std::stable_sort of the positions by (bucket, or +∞ past the key length), then each chunk's
// window column by column and each mask entry from the definition.
#include <algorithm>
#include <limits>
#include <numeric>

#include "core/reference/reference.h"

namespace lintra::reference {

namespace {

// The key position in window column w of chunk c (−1: none), from the sorted positions.
int64_t window_key(const std::vector<int64_t>& perm, int64_t c, int64_t w, int64_t C, int64_t nc) {
  const int64_t slot = nc == 1 ? c * C + w : (w < C ? (c == 0 ? -1 : (c - 1) * C + w) : c * C + (w - C));
  return slot < 0 ? -1 : perm[size_t(slot)];
}

}  // namespace

LshPlan lsh_plan(const Tensor& buckets, const Tensor& lengths, int64_t C, bool causal, bool masked, double self_logit) {
  const int64_t B = buckets.size(0), H = buckets.size(1), N = buckets.size(2), BH = B * H;
  const int64_t nc = (N + C - 1) / C, Np = nc * C, W = nc > 1 ? 2 * C : C;
  const std::vector<int64_t> bk = buckets.to_vector<int64_t>(), len = lengths.to_vector<int64_t>();
  std::vector<int64_t> qr(size_t(BH * Np)), wr(size_t(BH * nc * W)), sc(size_t(BH * N));
  std::vector<double> add(size_t(BH * nc * C * W)), ok(size_t(BH * nc * C));
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t bh = 0; bh < BH; ++bh) {
    const int64_t L = len[size_t(bh / H)];
    std::vector<int64_t> perm(static_cast<size_t>(N));
    std::iota(perm.begin(), perm.end(), int64_t(0));
    auto key = [&](int64_t j) { return j < L ? double(bk[size_t(bh * N + j)]) : inf; };
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
    perm.resize(size_t(Np), -1);
    for (int64_t t = 0; t < Np; ++t) {
      qr[size_t(bh * Np + t)] = bh * N + std::max<int64_t>(perm[size_t(t)], 0);
      if (perm[size_t(t)] >= 0) sc[size_t(bh * N + perm[size_t(t)])] = bh * Np + t;
    }
    for (int64_t c = 0; c < nc; ++c)
      for (int64_t i = 0; i < C; ++i) {
        const int64_t qp = perm[size_t(c * C + i)], row = (bh * nc + c) * C + i;
        bool any = false;
        for (int64_t w = 0; w < W; ++w) {
          const int64_t kp = window_key(perm, c, w, C, nc);
          if (i == 0) wr[size_t((bh * nc + c) * W + w)] = bh * N + std::max<int64_t>(kp, 0);
          const bool allowed = kp >= 0 && kp < L && !(causal && kp > qp);
          any = any || allowed;
          add[size_t(row * W + w)] = !allowed ? -inf : (masked && kp == qp ? self_logit : 0.0);
        }
        ok[size_t(row)] = any ? 1 : 0;
        if (!any) std::fill_n(add.begin() + row * W, W, 0.0);
      }
  }
  return {Tensor::from_vector(qr, {BH * Np}), Tensor::from_vector(wr, {BH * nc * W}), Tensor::from_vector(sc, {BH * N}),
          Tensor::from_vector(add, {BH, nc, C, W}), Tensor::from_vector(ok, {BH, nc, C, 1})};
}

}  // namespace lintra::reference
