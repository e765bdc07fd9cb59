// cuda/table.h — what the CUDA kernel table (cuda/kernel_table.cpp) is made of beyond the launchers
// it calls directly: the cuBLAS matmul (cuda/matmul.cpp) and the LSTM's step loops over it
// (cuda/lstm_steps.cpp). Host code only.
#pragma once

#include "core/kernels.h"

namespace lintra::kernels::cuda_backend {

// kernels.h's matmul on CUDA tensors, through cuBLAS (accumulate: out += a·b).
void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool accumulate);

// kernels.h's lstm_forward and lstm_backward on CUDA tensors.
void lstm_forward(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths, bool reverse,
                  Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs);
void lstm_backward(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse, const Tensor& acts,
                   const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh, Tensor& db_hh);

}  // namespace lintra::kernels::cuda_backend
