#include "core/cpu/matmul_bf16.h"

#include <dnnl.hpp>
#include <dnnl_debug.h>

#include "core/error.h"
#include "core/tensor.h"

namespace lintra::kernels::cpu {

namespace {

using dnnl::memory;
using Dims = memory::dims;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// op(x) as a rows × cols float32 matrix over x's row-major storage with leading dim ld.
memory::desc f32_view(int64_t rows, int64_t cols, int64_t ld, bool transposed) {
  return memory::desc(Dims{rows, cols}, memory::data_type::f32, transposed ? Dims{1, ld} : Dims{ld, 1});
}

// A scratch buffer of `bytes` from lintra's caching allocator (no page faults once the step repeats).
Tensor scratch_bytes(size_t bytes) { return Tensor::empty({int64_t(bytes)}, DType::u8); }

}  // namespace

void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, float beta) try {
  dnnl::engine& engine = cpu_engine();
  dnnl::stream stream(engine);
  const memory::desc a_f32 = f32_view(M, K, lda, ta), b_f32 = f32_view(K, N, ldb, tb);
  const memory::desc c_f32(Dims{M, N}, memory::data_type::f32, Dims{ldc, 1});
  // bf16 operands in whatever layout the matmul picks (format any: e.g. the weights' blocked packing).
  const memory::desc a_any(Dims{M, K}, memory::data_type::bf16, memory::format_tag::any);
  const memory::desc b_any(Dims{K, N}, memory::data_type::bf16, memory::format_tag::any);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // from lintra's cache, not a fresh malloc per call
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::primitive_desc mm(dnnl::matmul::desc(a_any, b_any, c_f32), attr, engine);
  Tensor a_buf = scratch_bytes(mm.src_desc().get_size()), b_buf = scratch_bytes(mm.weights_desc().get_size());
  Tensor pad_buf = scratch_bytes(mm.scratchpad_desc().get_size());
  memory a_src(a_f32, engine, const_cast<float*>(a)), b_src(b_f32, engine, const_cast<float*>(b));
  memory a_bf16(mm.src_desc(), engine, a_buf.data<uint8_t>()), b_bf16(mm.weights_desc(), engine, b_buf.data<uint8_t>());
  memory c_mem(c_f32, engine, c), pad(mm.scratchpad_desc(), engine, pad_buf.data<uint8_t>());
  dnnl::reorder(a_src, a_bf16).execute(stream, a_src, a_bf16);
  dnnl::reorder(b_src, b_bf16).execute(stream, b_src, b_bf16);
  dnnl::matmul(mm).execute(
      stream, {{DNNL_ARG_SRC, a_bf16}, {DNNL_ARG_WEIGHTS, b_bf16}, {DNNL_ARG_DST, c_mem}, {DNNL_ARG_SCRATCHPAD, pad}});
  stream.wait();
} catch (const dnnl::error& e) {
  LINTRA_FAIL("matmul (bf16, oneDNN) of {}×{} by {}×{}: {} ({})", M, K, K, N, e.what(), dnnl_status2str(e.status));
}

}  // namespace lintra::kernels::cpu
