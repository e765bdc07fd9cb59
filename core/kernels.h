// kernels.h — the one list of device kernels: struct KernelTable, one member per kernel, each
// signature written once, here, with its contract above it.
//
// A device backend is a table: core/cpu/kernel_table.cpp fills `cpu::table` with the functions of
// core/cpu/*.cpp; core/strict/kernel_table.cpp fills `strict::table` by running each of them on the
// strict device's memory (core/kernel_access.h). A call picks the table of the tensor whose device
// decides (usually the output):
//   kernels::on(out).matmul(a, b, out, /*accumulate=*/false);
// Each member is a Kernel<signature>, which has no default constructor, so a backend table that
// leaves a kernel out does not compile (g++ 12: "could not convert '<brace-enclosed initializer
// list>()' from '<brace-enclosed initializer list>' to 'Kernel<…>'"), and a backend function that is
// declared but not written is a link error — never a run-time surprise. The CUDA table
// (core/cuda/kernel_table.cpp, builds with LINTRA_WITH_CUDA) has a GPU kernel for every member:
// core/cuda/*.cu, matmul through cuBLAS, sort and scan through CUB. Slow, obvious versions of the
// kernels live in core/reference/ and serve only as test oracles.
//
// One device per call. Calling a Kernel checks that every defined tensor argument lives on one device
// and otherwise throws naming both devices, the tensors and the caller (Kernel::operator()): this is
// the one mixed-device check of lintra, so no op repeats it.
//
// Adding a kernel: (1) its member here, with its contract; (2) in core/cpu/kernel_table.cpp its
// declaration (`kernel_function<&KernelTable::name> name;`) and its `.name = name` entry; (3) its
// definition in core/cpu/<family>.cpp (the signature as written here, else the link fails); (4) its
// entry `.name = on_host<&KernelTable::name>` in core/strict/kernel_table.cpp; (5) its CUDA entry in
// core/cuda/kernel_table.cpp, its kernel in core/cuda/<family>.cu. Then its caller in core/ops.cpp,
// its reference and its tests (the CPU against the reference on every SIMD target; CUDA against the CPU).
//
// Conventions: inputs may have any strides; `out` arguments are preallocated by the caller (core/ops.cpp),
// contiguous, with the documented shape and dtype. Kernels validate nothing the caller already checked,
// and never throw for bad data: a kernel that finds some (an index out of range, a non-finite value)
// writes what it found into an output that the caller copies to the host and reports.
#pragma once

#include <cstdint>
#include <utility>

#include "core/binary_ops.h"
#include "core/device.h"
#include "core/source_location.h"
#include "core/tensor.h"
#include "core/unary_ops.h"

namespace lintra {
class Generator;
}

namespace lintra::kernels {

enum class ReduceOp : uint8_t { sum, max, min };

namespace detail {
// The mixed-device check of a kernel call: the first defined tensor argument's device, then each
// other's against it.
struct DeviceCheck {
  const Tensor* first = nullptr;
  int first_position = 0;
  SourceLocation caller;
};
[[noreturn]] void mixed_devices(const DeviceCheck& c, int position, const Tensor& t);
template <class T> void check_argument(DeviceCheck&, int, const T&) {}
inline void check_argument(DeviceCheck& c, int position, const Tensor& t) {
  if (!t.defined()) return;
  if (c.first == nullptr) {
    c.first = &t;
    c.first_position = position;
  } else if (t.device() != c.first->device()) [[unlikely]] {
    mixed_devices(c, position, t);
  }
}
}  // namespace detail

// One kernel of a table: a function pointer of the given signature, called like the function after
// the one-device check of its tensor arguments.
template <class Signature> class Kernel;
template <class R, class... Args> class Kernel<R(Args...)> {
 public:
  using Function = R(Args...);
  constexpr Kernel(Function* f) : f_(f) {}  // implicit: a table entry reads `.copy = copy`
  Kernel(std::nullptr_t) = delete;
  R operator()(Args... args, SourceLocation caller = SourceLocation::current()) const {
    detail::DeviceCheck check{.caller = caller};
    int position = 0;
    (detail::check_argument(check, ++position, args), ...);
    return f_(std::forward<Args>(args)...);
  }

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
  // out (…, M, N) = a (…, M, K) · b (…, K, N) with broadcast batch dims; any strides. accumulate:
  // out += a·b instead (BLAS's beta = 1: a bias or a residual already in out costs no pass of its own)
  Kernel<void(const Tensor& a, const Tensor& b, Tensor& out, bool accumulate)> matmul;
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
  // dropout in one pass, the same call for the forward (on x) and the backward (on its gradient):
  // d_i = x_i · (u_i < keep ? scale : 0) for float32 x (any strides) → out (x's shape, contiguous),
  // u_i the element i of the float32 uniform fill of [0, 1) from Philox block `first` of (stream, seed)
  // (what `uniform` writes there), compared and multiplied in float32: bit for bit
  // x · (bernoulli(keep) · scale) as three ops would give it, without a mask in memory. Two optional
  // float32 operands of x's shape (undefined: absent) fuse the ops around a dropout: gate_i > 0 ? d_i
  // : 0 (dropout after relu: the gate is relu's input, in the forward and in the backward), then
  // residual_i + d_i (a residual connection) — bit for bit relu, dropout and add one after another.
  // O(n): one read of each operand, one write and 2.5 Philox multiplies per element (cpu/random.cpp,
  // cuda/random.cu).
  Kernel<void(const Tensor& x, const Tensor& gate, const Tensor& residual, uint64_t first, uint64_t stream,
              uint64_t seed, float keep, float scale, Tensor& out)>
      dropout;
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
  // causal linear attention's normaliser (PAPER.md §3 eq 12; cpu/causal_normalise.cpp): den_i =
  // q_i·Σ_{j≤i} k_j + eps and out_i = num_i / den_i for q, k (B, H, N, E) (a unit last stride is
  // cheapest; any strides) and num (B, H, N, M) → out (B, H, N, M), den (B, H, N). O(B·H·N·(E + M)),
  // one sweep per (b, h) keeping the E-long prefix sum.
  Kernel<void(const Tensor& q, const Tensor& k, const Tensor& num, double eps, Tensor& out, Tensor& den)>
      causal_normalise_forward;
  // its gradients from grad g (B, H, N, M) and the forward's out and den: c_i = −(g_i·out_i)/den_i,
  // gnum_i = g_i/den_i, gq_i = c_i Σ_{j≤i} k_j, gk_j = Σ_{i≥j} c_i q_i; gnum, gq, gk are overwritten.
  Kernel<void(const Tensor& q, const Tensor& k, const Tensor& out, const Tensor& den, const Tensor& grad,
              Tensor& gnum, Tensor& gq, Tensor& gk)>
      causal_normalise_backward;
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
  // out (1-d, contiguous, any dtype) = start + i·step, computed in float64 and cast
  Kernel<void(Tensor& out, double start, double step)> arange;
  // the values of the i64 tensor `index` outside [low, high): result i64 (3) = [how many, the flat
  // (row-major) position of the first, its value], [0, −1, 0] when there is none; O(numel)
  Kernel<void(const Tensor& index, int64_t low, int64_t high, Tensor& result)> index_range;
  // softmax over the last dim of x restricted to the keys `allowed` (u8, broadcasting to x's shape):
  // y_i = exp(x_i − m)/Σ_{allowed j} exp(x_j − m) where allowed, 0 elsewhere, m the allowed maximum;
  // a row with nothing allowed is 0. The backward is softmax_backward (0 stays 0). float dtypes
  Kernel<void(const Tensor& x, const Tensor& allowed, Tensor& out)> masked_softmax_forward;
  // one hash round of reformer attention (nn/attention/reformer_attention.cpp, Note there): buckets i64
  // (B, H, N) ≥ 0, lengths i64 (B) in [0, N]. Per (b, h) = bh the positions sorted stably by bucket, those
  // ≥ length last, cut into nc chunks of C slots (Np = nc·C ≥ N, the fill slots at the end); W = C
  // (one chunk) or 2C (a chunk and the one before). Writes, as rows of the (BH·N) inputs:
  // query_rows (BH·Np) of each slot, window_rows (BH·nc·W) of each window column, scatter (BH·N) the slot
  // (of BH·Np) of each position; additive (BH, nc, C, W): 0, −inf (a fill slot, a padded key, a later
  // position under `causal`) or self_logit (the query itself when `masked`), all 0 on a row with no
  // admissible key, and row_ok (BH, nc, C, 1) 1/0 of the same dtype. O(BH·(N + 2·bits + nc·C·W))
  Kernel<void(const Tensor& buckets, const Tensor& lengths, bool causal, bool masked, double self_logit,
              Tensor& query_rows, Tensor& window_rows, Tensor& scatter, Tensor& additive, Tensor& row_ok)>
      lsh_plan;
  // draws from a discretised logistic mixture per row (nn/losses/mixture_of_logistics.h): params (R, 3K)
  // float (K logits, K means, K raw scales), uniforms float64 (R, K + 1) in [0, 1) → out i64
  // (R) in [0, levels) (Gumbel-max component, logistic sample, rounded half to even), in float64;
  // bad i64 (2) = [row, component] of the first non-finite parameter, [−1, −1] when none. O(R·K)
  Kernel<void(const Tensor& params, const Tensor& uniforms, int64_t levels, Tensor& out, Tensor& bad)> sample_mol;
  // CTC forward–backward in log space, in float64 (nn/losses/ctc.h): log_probs (B, T, C) float, targets
  // i64 (B, S), input_lengths, target_lengths i64 (B) with 1 ≤ T_b ≤ T, 0 ≤ S_b ≤ S (checked by the
  // caller) → nll (B) = −ln p(target_b), grad (B, T, C) = ∂nll_b/∂log_probs (0 at frames ≥ T_b), both
  // of log_probs' dtype; status i64 (B, 3) per sequence: [0, 0, 0] ok, [1, i, label] target i outside
  // [1, C), [2, repeats, 0] fewer than S_b + repeats frames, [3, 0, 0] a non-finite loss. O(B·T·S)
  Kernel<void(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
              const Tensor& target_lengths, Tensor& nll, Tensor& grad, Tensor& status)>
      ctc_loss;
  // one Adam / RAdam update in place (train/optim/adam.cpp, radam.cpp), p, g, m, v contiguous of one
  // float dtype: m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², then p ← p·decay − step·m/(√v + ε) when
  // `rectified` (Adam always), else p ← p·decay − step·m (RAdam's early steps)
  Kernel<void(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, double beta1, double beta2, double eps,
              double decay, double step, bool rectified)>
      adam_update;
  // one SGD update in place (train/optim/sgd.cpp): d = g + wd·p; with a momentum buffer (defined)
  // buf ← d on the first step, else μ·buf + d, and d = buf; then p ← p − lr·d
  Kernel<void(Tensor& p, const Tensor& g, Tensor& buf, double lr, double momentum, double weight_decay,
              bool first)>
      sgd_update;
  // out (float64, 0-d) = Σ x² of a contiguous float tensor, accumulated in float64 over fixed blocks
  // combined in block order, so the result does not depend on the thread count (gradient clipping)
  Kernel<void(const Tensor& x, Tensor& out)> sum_squares;
};

// The kernel table of a device: the CPU's, the strict device's, CUDA's (a build without CUDA throws).
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
namespace strict {
extern const KernelTable table;  // core/strict/kernel_table.cpp
}
#ifdef LINTRA_WITH_CUDA
namespace cuda_backend {
extern const KernelTable table;  // core/cuda/kernel_table.cpp
}
#endif

}  // namespace lintra::kernels
