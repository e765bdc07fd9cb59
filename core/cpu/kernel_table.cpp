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
kernel_function<&KernelTable::causal_product_forward> causal_product_forward;  // causal_product.cpp
kernel_function<&KernelTable::causal_product_backward> causal_product_backward;
kernel_function<&KernelTable::lstm_forward> lstm_forward;  // lstm.cpp
kernel_function<&KernelTable::lstm_backward> lstm_backward;

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
    .causal_product_forward = causal_product_forward,
    .causal_product_backward = causal_product_backward,
    .lstm_forward = lstm_forward,
    .lstm_backward = lstm_backward,
};

}  // namespace lintra::kernels::cpu
