// kernels.h — the one list of device kernels: struct KernelTable, one member per kernel, each
// signature written once, here, with its contract above it.
//
// A device backend is a table: core/cpu/kernel_table.cpp fills `cpu::table` with the functions of
// core/cpu/*.cpp. A call picks the table of the tensor whose device decides (usually the output):
//   kernels::on(out).matmul(a, b, out);
// Each member is a Kernel<signature>, which has no default constructor, so a backend table that
// leaves a kernel out does not compile (g++ 12: "could not convert '<brace-enclosed initializer
// list>()' from '<brace-enclosed initializer list>' to 'Kernel<…>'"), and a backend function that is
// declared but not written is a link error — never a run-time surprise. This build has only the
// CPU table: on(Device::cuda) throws. Slow, obvious versions of the kernels live in core/reference/
// and serve only as test oracles.
//
// Adding a kernel: (1) its member here, with its contract; (2) in core/cpu/kernel_table.cpp its
// declaration (`kernel_function<&KernelTable::name> name;`) and its `.name = name` entry; (3) its
// definition in core/cpu/<family>.cpp (the signature as written here, else the link fails); a CUDA
// table, once there is one, gets the same three. Then its caller in core/ops.cpp and its test.
//
// Conventions: inputs may have any strides; `out` arguments are preallocated by the caller (core/ops.cpp),
// contiguous, with the documented shape and dtype. Kernels validate nothing the caller already checked.
#pragma once

#include <cstdint>
#include <utility>

#include "core/binary_ops.h"
#include "core/device.h"
#include "core/tensor.h"
#include "core/unary_ops.h"

namespace lintra {
class Generator;
}

namespace lintra::kernels {

enum class ReduceOp : uint8_t { sum, max, min };

// One kernel of a table: a function pointer of the given signature, called like the function.
template <class Signature> class Kernel;
template <class R, class... Args> class Kernel<R(Args...)> {
 public:
  using Function = R(Args...);
  constexpr Kernel(Function* f) : f_(f) {}  // implicit: a table entry reads `.copy = copy`
  Kernel(std::nullptr_t) = delete;
  R operator()(Args... args) const { return f_(std::forward<Args>(args)...); }

 private:
  Function* f_;
};

struct KernelTable {
  // out[i] = src[i] (src broadcasts to out's shape; dtypes may differ: a cast)
  Kernel<void(const Tensor& src, Tensor& out)> copy;
  Kernel<void(Tensor& out, double value)> fill;
  // out = op(x) with op's parameters a, b (core/unary_ops.h); float dtypes, and int64 for the ops
  // marked on_int64 (neg, abs, square, clamp, add/mul/rsub_scalar)
  Kernel<void(UnaryOp op, const Tensor& x, Tensor& out, double a, double b)> unary;
  // dx = op's backward g·f'(x) (core/unary_ops.h) from grad and x and/or y = op(x), as op's `saves`
  // says (the other may be undefined); grad, x, y and dx have one shape; float dtypes
  Kernel<void(UnaryOp op, const Tensor& grad, const Tensor& x, const Tensor& y, Tensor& dx, double a, double b)>
      unary_backward;
  // out = op(a, b) (core/binary_ops.h); a and b broadcast to out's shape and have one dtype, out's
  // (comparisons: out is u8)
  Kernel<void(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out)> binary;
  // out = cond ? a : b, all broadcasting to out's shape; cond is u8
  Kernel<void(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out)> where;
  // out (x's shape with dim → 1) = reduction of x over dim
  Kernel<void(ReduceOp op, const Tensor& x, int64_t dim, Tensor& out)> reduce;
  // values and i64 indices (x's shape with dim → 1) of the max (is_max) or min over dim; first on ties
  Kernel<void(bool is_max, const Tensor& x, int64_t dim, Tensor& values, Tensor& indices)> arg_reduce;
  // softmax (log_softmax when log) over the last dim of x
  Kernel<void(const Tensor& x, bool log, Tensor& out)> softmax_forward;
  // dx from y = the forward's output and dy, over the last dim
  Kernel<void(const Tensor& y, const Tensor& dy, bool log, Tensor& dx)> softmax_backward;
  // layer norm over the last dim D of x (R rows): y = (x − μ)·rstd·γ + β; mean, rstd are (R)
  Kernel<void(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps, Tensor& y, Tensor& mean,
              Tensor& rstd)>
      layer_norm_forward;
  Kernel<void(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& gamma,
              Tensor& dx, Tensor& dgamma, Tensor& dbeta)>
      layer_norm_backward;
  // out (…, M, N) = a (…, M, K) · b (…, K, N) with broadcast batch dims; any strides
  Kernel<void(const Tensor& a, const Tensor& b, Tensor& out)> matmul;
  // out = x.index_select(dim, index) ; index is i64 1-d
  Kernel<void(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out)> index_select;
  // out[i][j] = x[i][index[i][j]] along dim (index has out's shape)
  Kernel<void(const Tensor& x, int64_t dim, const Tensor& index, Tensor& out)> gather;
  // out[…index[i][j]…] += src[i][j] along dim, in place on out (which is contiguous)
  Kernel<void(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src)> scatter_add;
  // out[index[i]] += src[i] along dim (rows of src added to rows of out), in place
  Kernel<void(Tensor& out, int64_t dim, const Tensor& index, const Tensor& src)> index_add;
  // inclusive prefix sum over dim; from the end when reverse
  Kernel<void(const Tensor& x, int64_t dim, bool reverse, Tensor& out)> cumsum;
  // stable sort over dim: values (x's dtype) and i64 indices
  Kernel<void(const Tensor& x, int64_t dim, bool descending, Tensor& values, Tensor& indices)> sort;
  // random fills from a Philox generator (core/rng.h); float outputs
  Kernel<void(Tensor& out, Generator& gen, double low, double high)> uniform;
  Kernel<void(Tensor& out, Generator& gen, double mean, double std)> normal;
  // causal linear product (the numerator of causal linear attention; PAPER.md §3):
  // out_i = Σ_{j≤i} (q_i·k_j) v_j for q, k (B, H, N, E), v (B, H, N, M) → out (B, H, N, M); any strides.
  // O(B·H·N·E·M) time, O(E·M) state per thread: no N×N or N×E×M intermediate (cpu/causal_product.cpp).
  Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out)> causal_product_forward;
  // its gradients from grad_out g (B, H, N, M), Algorithm 1 (recomputes the states, stores none):
  // gq_i = S_i g_i with S_i = Σ_{j≤i} k_j v_jᵀ; gk_i = R_i v_i, gv_i = R_iᵀ k_i with R_i = Σ_{j≥i} q_j g_jᵀ.
  // gq, gk (B, H, N, E) and gv (B, H, N, M) are overwritten. About 2.5× the forward's multiply-adds.
  Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& grad_out, Tensor& gq, Tensor& gk,
              Tensor& gv)>
      causal_product_backward;
  // the recurrence of one LSTM direction (nn/lstm.h, gate order i, f, g, o; cpu/lstm.cpp): xw (B, T, 4H) =
  // the input projection, w_hh (4H, H), b_hh (4H), lengths i64 (B) in [0, T] → h (B, T, H), zero at t ≥ T_b
  // (the state is frozen there). Step s reads and writes frame s, or frame T_b − 1 − s when reverse (each
  // sequence runs from its last valid frame back to its first). Saves, by step: acts (T, B, 4H) =
  // [σ(i), σ(f), tanh(g), σ(o)] (0 at padded steps) and the states hs, cs (T + 1, B, H), row 0 = h_0 = c_0 = 0.
  // Per step one GEMM (B × H)·(H × 4H).
  Kernel<void(const Tensor& xw, const Tensor& w_hh, const Tensor& b_hh, const Tensor& lengths, bool reverse,
              Tensor& h, Tensor& acts, Tensor& hs, Tensor& cs)>
      lstm_forward;
  // its backpropagation through time from grad_h (B, T, H): dxw (B, T, 4H) = ∂L/∂(gate pre-activations),
  // dw_hh (4H, H) and db_hh (4H), each overwritten; dw_hh, db_hh may be undefined (not wanted).
  // Per step one GEMM (B × 4H)·(4H × H), then dw_hh as one GEMM (4H × T·B)·(T·B × H).
  Kernel<void(const Tensor& grad_h, const Tensor& w_hh, const Tensor& lengths, bool reverse, const Tensor& acts,
              const Tensor& hs, const Tensor& cs, Tensor& dxw, Tensor& dw_hh, Tensor& db_hh)>
      lstm_backward;
};

// The kernel table of a device; Device::cuda throws (this build has no CUDA kernels).
const KernelTable& on(Device device);
inline const KernelTable& on(const Tensor& t) { return on(t.device()); }

// The function type of a table member, for declaring a backend's kernels without restating their
// signatures: `kernel_function<&KernelTable::copy>` is void(const Tensor& src, Tensor& out).
template <class Member> struct kernel_member;
template <class K> struct kernel_member<K KernelTable::*> {
  using Function = typename K::Function;
};
template <auto member> using kernel_function = typename kernel_member<decltype(member)>::Function;

namespace cpu {
extern const KernelTable table;  // core/cpu/kernel_table.cpp
}

}  // namespace lintra::kernels
