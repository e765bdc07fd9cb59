// strict/kernel_table.cpp — the strict test device's kernel table (core/device.h, DESIGN.md §3).
//
// Each entry runs the CPU kernel of the same name on the strict device's memory: every tensor argument
// is viewed as a CPU tensor over the same bytes (KernelAccess::host_view) and handed to cpu::table, so
// the strict device computes exactly what the CPU computes, bit for bit. This table is the only code
// that touches strict memory; everything above it sees tensors whose elements the host may not read
// (Tensor::data<T>() and friends throw) and whose ops refuse CPU operands. A model that trains on the
// strict device therefore has no host loop over tensor data and no tensor made on the wrong device
// left above the kernels: what a CUDA build needs, proved without a GPU.
//
// A kernel added to the list (core/kernels.h) gets one line here: `.name = on_host<&KernelTable::name>`.
#include <tuple>

#include "core/kernel_access.h"
#include "core/kernels.h"

namespace lintra::kernels::strict {

namespace {

// What an argument is held as during the call: tensors as their CPU views, everything else as it is.
template <class A> struct Held {
  using type = A;
};
template <> struct Held<const Tensor&> {
  using type = Tensor;
};
template <> struct Held<Tensor&> {
  using type = Tensor;
};

inline Tensor held(const Tensor& t) { return KernelAccess::host_view(t); }
inline Tensor held(Tensor& t) { return KernelAccess::host_view(t); }
template <class T> T& held(T& x) { return x; }

template <auto member, class Signature = kernel_function<member>> struct OnHost;
template <auto member, class R, class... Args> struct OnHost<member, R(Args...)> {
  static R run(Args... args) {
    std::tuple<typename Held<Args>::type...> views{held(args)...};
    return std::apply([](auto&... v) -> R { return (cpu::table.*member)(v...); }, views);
  }
};

template <auto member> inline constexpr kernel_function<member>* on_host = &OnHost<member>::run;

}  // namespace

constinit const KernelTable table = {
    .copy = on_host<&KernelTable::copy>,
    .fill = on_host<&KernelTable::fill>,
    .unary = on_host<&KernelTable::unary>,
    .unary_backward = on_host<&KernelTable::unary_backward>,
    .binary = on_host<&KernelTable::binary>,
    .where = on_host<&KernelTable::where>,
    .reduce = on_host<&KernelTable::reduce>,
    .arg_reduce = on_host<&KernelTable::arg_reduce>,
    .softmax_forward = on_host<&KernelTable::softmax_forward>,
    .softmax_backward = on_host<&KernelTable::softmax_backward>,
    .layer_norm_forward = on_host<&KernelTable::layer_norm_forward>,
    .layer_norm_backward = on_host<&KernelTable::layer_norm_backward>,
    .matmul = on_host<&KernelTable::matmul>,
    .index_select = on_host<&KernelTable::index_select>,
    .gather = on_host<&KernelTable::gather>,
    .scatter_add = on_host<&KernelTable::scatter_add>,
    .index_add = on_host<&KernelTable::index_add>,
    .cumsum = on_host<&KernelTable::cumsum>,
    .sort = on_host<&KernelTable::sort>,
    .uniform = on_host<&KernelTable::uniform>,
    .normal = on_host<&KernelTable::normal>,
    .dropout = on_host<&KernelTable::dropout>,
    .causal_product_forward = on_host<&KernelTable::causal_product_forward>,
    .causal_product_backward = on_host<&KernelTable::causal_product_backward>,
    .causal_normalise_forward = on_host<&KernelTable::causal_normalise_forward>,
    .causal_normalise_backward = on_host<&KernelTable::causal_normalise_backward>,
    .lstm_forward = on_host<&KernelTable::lstm_forward>,
    .lstm_backward = on_host<&KernelTable::lstm_backward>,
    .arange = on_host<&KernelTable::arange>,
    .index_range = on_host<&KernelTable::index_range>,
    .masked_softmax_forward = on_host<&KernelTable::masked_softmax_forward>,
    .lsh_plan = on_host<&KernelTable::lsh_plan>,
    .sample_mol = on_host<&KernelTable::sample_mol>,
    .ctc_loss = on_host<&KernelTable::ctc_loss>,
    .adam_update = on_host<&KernelTable::adam_update>,
    .sgd_update = on_host<&KernelTable::sgd_update>,
    .sum_squares = on_host<&KernelTable::sum_squares>,
};

}  // namespace lintra::kernels::strict
