// cpu/kernel_table.cpp — the CPU backend's kernel table. The kernels are declared here with the
// signatures of the list (core/kernels.h) and defined in core/cpu/<family>.cpp; a kernel missing
// from the table does not compile, one declared but not defined does not link.
#include "core/kernels.h"

namespace lintra::kernels::cpu {

kernel_function<&KernelTable::copy> copy;                        // elementwise.cpp
kernel_function<&KernelTable::fill> fill;                        // elementwise.cpp
kernel_function<&KernelTable::unary> unary;                      // elementwise.cpp
kernel_function<&KernelTable::unary_backward> unary_backward;    // elementwise.cpp
kernel_function<&KernelTable::binary> binary;                    // elementwise.cpp
kernel_function<&KernelTable::where> where;                      // elementwise.cpp
kernel_function<&KernelTable::reduce> reduce;                    // reduce.cpp
kernel_function<&KernelTable::arg_reduce> arg_reduce;            // reduce.cpp
kernel_function<&KernelTable::softmax_forward> softmax_forward;  // softmax.cpp
kernel_function<&KernelTable::softmax_backward> softmax_backward;
kernel_function<&KernelTable::layer_norm_forward> layer_norm_forward;  // layer_norm.cpp
kernel_function<&KernelTable::layer_norm_backward> layer_norm_backward;
kernel_function<&KernelTable::matmul> matmul;              // matmul.cpp
kernel_function<&KernelTable::index_select> index_select;  // index.cpp
kernel_function<&KernelTable::gather> gather;
kernel_function<&KernelTable::scatter_add> scatter_add;
kernel_function<&KernelTable::index_add> index_add;
kernel_function<&KernelTable::cumsum> cumsum;  // scan_sort.cpp
kernel_function<&KernelTable::sort> sort;
kernel_function<&KernelTable::uniform> uniform;  // random.cpp
kernel_function<&KernelTable::normal> normal;
kernel_function<&KernelTable::dropout> dropout;
kernel_function<&KernelTable::causal_product_forward> causal_product_forward;  // causal_product.cpp
kernel_function<&KernelTable::causal_product_backward> causal_product_backward;
kernel_function<&KernelTable::causal_normalise_forward> causal_normalise_forward;  // causal_normalise.cpp
kernel_function<&KernelTable::causal_normalise_backward> causal_normalise_backward;
kernel_function<&KernelTable::lstm_forward> lstm_forward;  // lstm.cpp
kernel_function<&KernelTable::lstm_backward> lstm_backward;
kernel_function<&KernelTable::arange> arange;                  // arange.cpp
kernel_function<&KernelTable::index_range> index_range;        // index_range.cpp
kernel_function<&KernelTable::masked_softmax_forward> masked_softmax_forward;  // masked_softmax.cpp
kernel_function<&KernelTable::lsh_plan> lsh_plan;              // lsh_plan.cpp
kernel_function<&KernelTable::sample_mol> sample_mol;          // mixture_of_logistics.cpp
kernel_function<&KernelTable::ctc_loss> ctc_loss;              // ctc.cpp
kernel_function<&KernelTable::adam_update> adam_update;        // optimizer.cpp
kernel_function<&KernelTable::sgd_update> sgd_update;
kernel_function<&KernelTable::sum_squares> sum_squares;

constinit const KernelTable table = {
    .copy = copy,
    .fill = fill,
    .unary = unary,
    .unary_backward = unary_backward,
    .binary = binary,
    .where = where,
    .reduce = reduce,
    .arg_reduce = arg_reduce,
    .softmax_forward = softmax_forward,
    .softmax_backward = softmax_backward,
    .layer_norm_forward = layer_norm_forward,
    .layer_norm_backward = layer_norm_backward,
    .matmul = matmul,
    .index_select = index_select,
    .gather = gather,
    .scatter_add = scatter_add,
    .index_add = index_add,
    .cumsum = cumsum,
    .sort = sort,
    .uniform = uniform,
    .normal = normal,
    .dropout = dropout,
    .causal_product_forward = causal_product_forward,
    .causal_product_backward = causal_product_backward,
    .causal_normalise_forward = causal_normalise_forward,
    .causal_normalise_backward = causal_normalise_backward,
    .lstm_forward = lstm_forward,
    .lstm_backward = lstm_backward,
    .arange = arange,
    .index_range = index_range,
    .masked_softmax_forward = masked_softmax_forward,
    .lsh_plan = lsh_plan,
    .sample_mol = sample_mol,
    .ctc_loss = ctc_loss,
    .adam_update = adam_update,
    .sgd_update = sgd_update,
    .sum_squares = sum_squares,
};

}  // namespace lintra::kernels::cpu
