// cuda/table.h — what the CUDA kernel table (cuda/kernel_table.cpp) is made of beyond the elementwise
// launchers (cuda/elementwise.h): the cuBLAS matmul (cuda/matmul.cpp). Host code only.
#pragma once

#include "core/kernels.h"

namespace lintra::kernels::cuda_backend {

// kernels.h's matmul on CUDA tensors, through cuBLAS.
void matmul(const Tensor& a, const Tensor& b, Tensor& out);

}  // namespace lintra::kernels::cuda_backend
