// cpu/optimizer.cpp — the optimizers' elementwise updates and the gradient norm (core/kernels.h):
//   adam_update   m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²,
//                 p ← p·decay − step·m/(√v + ε)  (rectified)   or   p ← p·decay − step·m
//   sgd_update    d = g + wd·p;  buf ← d (first step) or μ·buf + d;  d = buf;  p ← p − lr·d
//   sum_squares   Σ x² in float64 over blocks of 2^14 elements, combined in block order
// All O(n) in the parameter's dtype (sum_squares in float64), vectorised; the updates are one pass over
// contiguous memory (train/optim/ checks contiguity), the norm is OpenMP over blocks.
#include <cmath>
#include <vector>

#include "core/cpu/loops.h"
#include "core/kernels.h"

namespace lintra::kernels::cpu {

void adam_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, double beta1, double beta2, double eps,
                 double decay, double step, bool rectified) {
  dispatch_float(p.dtype(), "adam_update", [&]<typename T>() {
    T* pp = p.data<T>();
    const T* gp = g.data<T>();
    T* mp = m.data<T>();
    T* vp = v.data<T>();
    const T b1 = T(beta1), b2 = T(beta2), e = T(eps), dc = T(decay), ss = T(step);
    const int64_t n = p.numel();
    if (rectified) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        mp[j] = b1 * mp[j] + (1 - b1) * gp[j];
        vp[j] = b2 * vp[j] + (1 - b2) * gp[j] * gp[j];
        pp[j] = pp[j] * dc - ss * mp[j] / (std::sqrt(vp[j]) + e);
      }
    } else {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        mp[j] = b1 * mp[j] + (1 - b1) * gp[j];
        vp[j] = b2 * vp[j] + (1 - b2) * gp[j] * gp[j];
        pp[j] = pp[j] * dc - ss * mp[j];
      }
    }
  });
}

void sgd_update(Tensor& p, const Tensor& g, Tensor& buf, double lr, double momentum, double weight_decay,
                bool first) {
  dispatch_float(p.dtype(), "sgd_update", [&]<typename T>() {
    T* pp = p.data<T>();
    const T* gp = g.data<T>();
    T* bp = buf.defined() ? buf.data<T>() : nullptr;
    const T lr_t = T(lr), mu = T(momentum), wd = T(weight_decay);
    for (int64_t j = 0; j < p.numel(); ++j) {
      T d = gp[j] + wd * pp[j];
      if (bp) {
        bp[j] = first ? d : mu * bp[j] + d;
        d = bp[j];
      }
      pp[j] -= lr_t * d;
    }
  });
}

void sum_squares(const Tensor& x, Tensor& out) {
  const double s = dispatch_float(x.dtype(), "sum_squares", [&]<typename T>() {
    const T* p = x.data<T>();
    const int64_t n = x.numel();
    constexpr int64_t kBlock = 1 << 14;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
    team_for(blocks, blocks > 4, [&](int64_t b) {
      double acc = 0;
      const int64_t end = std::min(n, (b + 1) * kBlock);
      for (int64_t i = b * kBlock; i < end; ++i) acc += double(p[i]) * double(p[i]);
      partial[size_t(b)] = acc;
    });
    double total = 0;
    for (double v : partial) total += v;
    return total;
  });
  out.data<double>()[0] = s;
}

}  // namespace lintra::kernels::cpu
