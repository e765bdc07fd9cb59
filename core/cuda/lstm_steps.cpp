// cuda/lstm_steps.cpp — the LSTM recurrence's step loops on the GPU (kernels.h lstm_forward and
// lstm_backward; the math is core/cpu/lstm.cpp's): per step one cuBLAS GEMM through the table's matmul
// and one cell kernel for every sequence (cuda/lstm.cu), all queued on the device's stream. Host code
// (g++). The sequence lengths are read to the host once (an explicit copy) for the last valid step,
// past which the forward skips the GEMM as the CPU does; the kernels read them on the device.
#include <algorithm>
#include <vector>

#include "core/cuda/lstm.h"
#include "core/cuda/table.h"
#include "core/kernel_access.h"

namespace lintra::kernels::cuda_backend {

namespace {

lintra::cuda::Elem float_elem(const Tensor& t) {
  return t.dtype() == DType::f64 ? lintra::cuda::Elem::f64 : lintra::cuda::Elem::f32;
}

int64_t longest(const Tensor& lengths) {
  const std::vector<int64_t> len = lengths.cpu().to_vector<int64_t>();
  return len.empty() ? 0 : *std::max_element(len.begin(), len.end());
}

void* at(const Tensor& t) { return KernelAccess::data(t); }

}  // namespace

void lstm_forward(const Tensor& xw_in, const Tensor& w_hh, const Tensor& b_hh_in, const Tensor& lengths_in,
                  bool reverse, Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs) {
  const Tensor xw = xw_in.contiguous(), b_hh = b_hh_in.contiguous(), lengths = lengths_in.contiguous();
  const int64_t B = xw.size(0), T = xw.size(1), G = xw.size(2), H = G / 4, T_max = longest(lengths);
  const int dev = h.device().index();
  hs.select(0, 0).zero_();
  cs.select(0, 0).zero_();
  Tensor pre = Tensor::empty({B, G}, xw.dtype(), xw.device());
  const Tensor w_t = w_hh.transpose(0, 1).contiguous();
  lintra::cuda::LstmStep st{0, B, T, H, reverse, static_cast<const int64_t*>(at(lengths))};
  for (int64_t s = 0; s < T; ++s) {
    st.s = s;
    if (s < T_max) matmul(hs.select(0, s), w_t, pre, false);  // past T_max every row is padded: pre is not read
    lintra::cuda::lstm_cell_forward(dev, float_elem(xw), st, at(pre), at(xw), at(b_hh), at(acts.select(0, s)),
                                    at(hs.select(0, s)), at(cs.select(0, s)), at(hs.select(0, s + 1)),
                                    at(cs.select(0, s + 1)), at(h));
  }
}

void lstm_backward(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths_in, bool reverse,
                   const Tensor& acts, const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh, Tensor& db_hh) {
  const Tensor go = grad_h.contiguous(), lengths = lengths_in.contiguous(), w = w_hh.contiguous();
  const int64_t B = dxw.size(0), T = dxw.size(1), G = dxw.size(2), H = G / 4, T_max = longest(lengths);
  const int dev = dxw.device().index();
  Tensor dgates = Tensor::empty({T, B, G}, dxw.dtype(), dxw.device());
  Tensor dh = Tensor::zeros({B, H}, dxw.dtype(), dxw.device()), dc = Tensor::zeros({B, H}, dxw.dtype(), dxw.device());
  Tensor rec = Tensor::empty({B, H}, dxw.dtype(), dxw.device());
  lintra::cuda::LstmStep st{0, B, T, H, reverse, static_cast<const int64_t*>(at(lengths))};
  for (int64_t s = T - 1; s >= 0; --s) {
    st.s = s;
    lintra::cuda::lstm_cell_backward(dev, float_elem(dxw), st, at(acts.select(0, s)), at(cs.select(0, s + 1)),
                                     at(cs.select(0, s)), at(go), at(dh), at(dc), at(dgates.select(0, s)), at(dxw));
    if (s == 0 || s >= T_max) continue;  // δh of h_0 is not needed; no valid row at s ≥ T_max
    matmul(dgates.select(0, s), w, rec, false);
    lintra::cuda::lstm_take_recurrent(dev, float_elem(dxw), st, at(rec), at(dh));
  }
  if (dw_hh.defined())
    matmul(dgates.view({T * B, G}).transpose(0, 1), hs.narrow(0, 0, T).view({T * B, H}), dw_hh, false);
  if (db_hh.defined()) {
    Tensor db = db_hh.view({1, G});
    on(dxw).reduce(ReduceOp::sum, dgates.view({T * B, G}), 0, db);
  }
}

}  // namespace lintra::kernels::cuda_backend
