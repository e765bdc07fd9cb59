#include "bench/kernels.h"

#include <cblas.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/cuda_reference.h"
#include "bench/timer.h"
#include "core/device.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/simd.h"
#include "core/threading.h"

namespace lintra::bench {

namespace {

struct CaseResult {
  std::string name;
  std::string unit;      // what lintra/reference measure
  double lintra = 0;     // higher is better
  double reference = 0;
  std::string reference_name;
};

// (M, K, N) GEMM: lintra's matmul against one direct cblas_sgemm call on the same buffers.
CaseResult gemm_case(int64_t M, int64_t K, int64_t N, double min_s) {
  Generator gen(1);
  Tensor a = Tensor::uniform({M, K}, gen, -1, 1), b = Tensor::uniform({K, N}, gen, -1, 1);
  Tensor c = Tensor::empty({M, N});
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  float* cp = c.data<float>();
  auto t = time_pair([&] { (void)ops::matmul(a, b); },
                     [&] {
                       cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f, ap, int(K),
                                   bp, int(N), 0.0f, cp, int(N));
                     },
                     min_s);
  double flops = 2.0 * double(M) * double(N) * double(K);
  return {fmt::format("matmul_{}x{}x{}", M, K, N), "GFLOP/s", flops / t.a_seconds / 1e9, flops / t.b_seconds / 1e9,
          "cblas_sgemm"};
}

// Batched (B × M×K·K×N): lintra's batched matmul against a loop of direct cblas_sgemm calls.
CaseResult batched_gemm_case(int64_t B, int64_t M, int64_t K, int64_t N, double min_s) {
  Generator gen(2);
  Tensor a = Tensor::uniform({B, M, K}, gen, -1, 1), b = Tensor::uniform({B, K, N}, gen, -1, 1);
  Tensor c = Tensor::empty({B, M, N});
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  float* cp = c.data<float>();
  auto t = time_pair([&] { (void)ops::matmul(a, b); },
                     [&] {
                       for (int64_t i = 0; i < B; ++i)
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f,
                                     ap + i * M * K, int(K), bp + i * K * N, int(N), 0.0f, cp + i * M * N, int(N));
                     },
                     min_s);
  double flops = 2.0 * double(B) * double(M) * double(N) * double(K);
  return {fmt::format("batched_matmul_{}x{}x{}x{}", B, M, K, N), "GFLOP/s", flops / t.a_seconds / 1e9,
          flops / t.b_seconds / 1e9, "loop of cblas_sgemm"};
}

// The LSTM recurrence of one direction, forward + backward (kernels::lstm_forward/backward: a GEMM per
// step and the dispatched float32 cell), against its GEMMs alone as direct cblas_sgemm calls on the same
// shapes: T × (B × H)·(H × 4H) forward, T × (B × 4H)·(4H × H) and one (4H × T·B)·(T·B × H) backward. The
// ratio is the share of the time the GEMMs would take by themselves. GFLOP/s count those GEMMs.
CaseResult lstm_case(int64_t B, int64_t T, int64_t H, double min_s) {
  Generator gen(4);
  const int64_t G = 4 * H;
  Tensor xw = Tensor::uniform({B, T, G}, gen, -1, 1), w = Tensor::uniform({G, H}, gen, -0.1, 0.1);
  Tensor bh = Tensor::uniform({G}, gen, -0.1, 0.1), gh = Tensor::uniform({B, T, H}, gen, -1, 1);
  Tensor len = Tensor::full({B}, double(T), DType::i64);
  Tensor h = Tensor::empty({B, T, H}), acts = Tensor::empty({T, B, G});
  Tensor hs = Tensor::empty({T + 1, B, H}), cs = Tensor::empty({T + 1, B, H});
  Tensor dxw = Tensor::empty({B, T, G}), dw = Tensor::empty({G, H}), db = Tensor::empty({G});
  Tensor sa = Tensor::uniform({T * B, G}, gen, -1, 1), sb = Tensor::empty({T * B, G});
  const auto& k = kernels::on(Device::cpu);
  const float* wp = w.data<float>();
  const float* hp = hs.data<float>();
  const float* ap = sa.data<float>();
  float* op = sb.data<float>();
  float* dwp = dw.data<float>();
  auto t = time_pair(
      [&] {
        k.lstm_forward(xw, w, bh, len, false, h, acts, hs, cs);
        k.lstm_backward(gh, w, len, false, acts, hs, cs, dxw, dw, db);
      },
      [&] {
        for (int64_t s = 0; s < T; ++s)  // h_{s−1} W_hhᵀ
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(B), int(G), int(H), 1.0f, hp + s * B * H, int(H),
                      wp, int(H), 0.0f, op + s * B * G, int(G));
        for (int64_t s = 0; s < T; ++s)  // ∂a_s W_hh
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(B), int(H), int(G), 1.0f, ap + s * B * G, int(G),
                      wp, int(H), 0.0f, op + s * B * H, int(H));
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(G), int(H), int(T * B), 1.0f, ap, int(G), hp, int(H),
                    0.0f, dwp, int(H));
      },
      min_s);
  const double flops = 3.0 * 2.0 * double(T) * double(B) * double(H) * double(G);
  return {fmt::format("lstm_fwd_bwd_{}x{}x{}", B, T, H), "GFLOP/s", flops / t.a_seconds / 1e9,
          flops / t.b_seconds / 1e9, "its GEMMs via cblas_sgemm"};
}

// Row and elementwise kernels against memcpy, in bytes moved per second (reads + writes; memcpy's
// rate counts its read and its write). The row kernels and the transcendental unary ops dispatch
// through Highway (core/simd.h), so --simd-target measures each of their paths.
struct MemoryWork {
  std::function<void()> f;
  double bytes;  // moved by one call of f
};

MemoryWork unary_work(const std::string& op, const Tensor& x, double nb) {
  if (op == "exp") return {[x] { (void)ops::exp(x); }, 2 * nb};
  if (op == "log") {
    Tensor positive = ops::add(ops::abs(x), 1e-3);
    return {[positive] { (void)ops::log(positive); }, 2 * nb};
  }
  if (op == "tanh") return {[x] { (void)ops::tanh(x); }, 2 * nb};
  if (op == "sigmoid") return {[x] { (void)ops::sigmoid(x); }, 2 * nb};
  if (op == "gelu") return {[x] { (void)ops::gelu(x); }, 2 * nb};
  if (op == "softplus") return {[x] { (void)ops::softplus(x); }, 2 * nb};
  if (op == "log_sigmoid") return {[x] { (void)ops::log_sigmoid(x); }, 2 * nb};
  // softplus' backward: dx = g·σ(x), reading g and x.
  return {[x] { (void)ops::unary_backward(kernels::unary_op<op::Softplus>, x, x, Tensor()); }, 3 * nb};
}

MemoryWork memory_work(const std::string& name, const Tensor& x, const Tensor& y, double nb) {
  const int64_t n = x.numel();
  if (name == "add") return {[&x, &y] { (void)ops::add(x, y); }, 3 * nb};
  if (name == "uniform") {  // a float32 Philox fill (vectorized, core/cpu/random.cpp): writes only
    auto gen = std::make_shared<Generator>(11);
    return {[gen, n] { (void)Tensor::uniform({n}, *gen); }, nb};
  }
  if (name == "dropout_mask") {  // dropout's mask as autograd/ops/nn.cpp builds it: bernoulli(0.9) / 0.9
    auto gen = std::make_shared<Generator>(12);
    return {[gen, n] { (void)ops::mul(ops::bernoulli({n}, 0.9, *gen), 1 / 0.9); }, nb};
  }
  if (name == "softmax_rows") {  // rows of 1024
    Tensor rows = x.view({n / 1024, 1024});
    return {[rows] { (void)ops::softmax(rows, -1); }, 2 * nb};
  }
  if (name == "softmax_fwd_bwd") {  // rows of 784 (the paper's MNIST sequence), forward then backward
    Tensor rows = x.view({n / 784, 784}), g = y.view({n / 784, 784});
    return {[rows, g] { (void)ops::softmax_backward(ops::softmax(rows, -1), g, -1, false); }, 5 * nb};
  }
  if (name == "masked_softmax_causal") {  // softmax attention's causal rows: (n/784², 784, 784), mask j ≤ i
    Tensor rows = x.view({n / (784 * 784), 784, 784});
    Tensor pos = Tensor::arange(784, DType::f32);
    Tensor allowed = ops::le(pos.view({1, 784}), pos.view({784, 1}));
    return {[rows, allowed] { (void)ops::masked_softmax(rows, allowed); }, 2 * nb};
  }
  if (name == "sum_rows") {  // rows of 784 summed: a loss's per-sequence sum (core/cpu/reduce.cpp run path)
    Tensor rows = x.view({n / 784, 784});
    return {[rows] { (void)ops::sum(rows, {1}); }, nb};
  }
  if (name == "sum_columns") {  // (n/256, 256) summed over the rows: a bias gradient (the accumulate path)
    Tensor rows = x.view({n / 256, 256});
    return {[rows] { (void)ops::sum(rows, {0}); }, nb};
  }
  if (name == "layer_norm_fwd_bwd") {  // rows of 256 (the paper's d_model), forward then backward
    Tensor rows = x.view({n / 256, 256}), g = y.view({n / 256, 256});
    Tensor gamma = Tensor::ones({256}), beta = Tensor::zeros({256});
    return {[=] { (void)ops::layer_norm_backward(g, rows, ops::layer_norm(rows, gamma, beta, 1e-5), gamma); },
            5 * nb};
  }
  return unary_work(name, x, nb);
}

CaseResult memory_case(const std::string& name, int64_t n, double min_s) {
  Generator gen(3);
  Tensor x = Tensor::uniform({n}, gen, -1, 1), y = Tensor::uniform({n}, gen, -1, 1);
  Tensor dst = Tensor::empty({n});
  const double nb = double(n) * 4;
  const MemoryWork w = memory_work(name, x, y, nb);
  auto t = time_pair(w.f, [&] { std::memcpy(dst.data<float>(), x.data<float>(), size_t(n) * 4); }, min_s);
  return {fmt::format("{}_{}M_f32", name, n >> 20), "GB/s", w.bytes / t.a_seconds / 1e9, 2 * nb / t.b_seconds / 1e9,
          "memcpy"};
}

// Dropout (p = 0.1) forward then backward as training runs it: the one-pass kernel on x and again on the
// gradient (ops::apply_dropout with one drawn mask), against the op-by-op form it replaced (bernoulli,
// scale, then x · mask and g · mask with the mask kept). Both rates count the one-pass form's bytes
// (x, y, g, dx: 4 × n floats), so the ratio is the speed-up.
CaseResult dropout_case(int64_t n, double min_s) {
  Generator gen(3), ga(12), gb(12);
  Tensor x = Tensor::uniform({n}, gen, -1, 1), g = Tensor::uniform({n}, gen, -1, 1);
  auto t = time_pair(
      [&] {
        const ops::DropoutMask m = ops::draw_dropout_mask(ga, n, 0.9);
        (void)ops::apply_dropout(x, m);
        (void)ops::apply_dropout(g, m);
      },
      [&] {
        const Tensor mask = ops::mul(ops::bernoulli({n}, 0.9, gb), 1 / 0.9);
        (void)ops::mul(x, mask);
        (void)ops::mul(g, mask);
      },
      min_s);
  const double bytes = 4.0 * double(n) * 4;
  return {fmt::format("dropout_fwd_bwd_{}M_f32", n >> 20), "GB/s", bytes / t.a_seconds / 1e9,
          bytes / t.b_seconds / 1e9, "op-by-op: bernoulli, scale, x·mask, g·mask"};
}

// Causal linear product, forward + backward (kernels::causal_product_*), at fast-transformers'
// benchmark size (PAPER.md §4.2), against one cblas_sgemm of comparable work: 1024³ (2.1 GFLOP
// against 2.5 here), which runs near the BLAS peak. FLOPs counted as the necessary multiply-adds ×2,
// per (b, h): forward N·E·M for the state updates S += k vᵀ + N·E·M for the reads qᵀS; backward
// 4·N·E·M (the three gradient reads and the suffix-state updates). What else the kernel executes —
// the prefix state recomputed, as in Algorithm 1, and the suffix state updated in a second, transposed
// layout (core/cpu/causal_product.cpp, Note [state sweeps]): 2·N·E·M more — is not counted, so the
// rate is conservative.
CaseResult causal_linear_case(int64_t B, int64_t H, int64_t N, int64_t E, int64_t M, double min_s) {
  Generator gen(4);
  Tensor q = Tensor::uniform({B, H, N, E}, gen, 0, 1), k = Tensor::uniform({B, H, N, E}, gen, 0, 1);
  Tensor v = Tensor::uniform({B, H, N, M}, gen, -1, 1), g = Tensor::uniform({B, H, N, M}, gen, -1, 1);
  Tensor out = Tensor::empty({B, H, N, M}), gq = Tensor::empty({B, H, N, E}), gk = Tensor::empty({B, H, N, E}),
         gv = Tensor::empty({B, H, N, M});
  const int S = 1024;
  Tensor a = Tensor::uniform({S, S}, gen, -1, 1), b = Tensor::uniform({S, S}, gen, -1, 1), c = Tensor::empty({S, S});
  const float* ap = a.data<float>();
  const float* bp = b.data<float>();
  float* cp = c.data<float>();
  auto t = time_pair(
      [&] {
        kernels::on(out).causal_product_forward(q, k, v, out);
        kernels::on(gq).causal_product_backward(q, k, v, g, gq, gk, gv);
      },
      [&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0f, ap, S, bp, S, 0.0f, cp, S); }, min_s);
  const double flops = 2.0 * 6.0 * double(B * H * N) * double(E) * double(M);
  return {fmt::format("causal-linear_{}x{}x{}x{}x{}", B, H, N, E, M), "GFLOP/s", flops / t.a_seconds / 1e9,
          2.0 * S * S * S / t.b_seconds / 1e9, "cblas_sgemm 1024^3"};
}

// --- on a GPU ---------------------------------------------------------------------------------------
// Each timed call queues kGpuCalls products (or kernel pairs) and then waits for the device, for lintra
// and for the reference alike: one wait costs tens of microseconds, as long as one product at the
// model's shapes.
constexpr int kGpuCalls = 20;

// lintra's matmul on the GPU — its dispatch, an output from the caching allocator, cuBLAS — against
// cuBLAS called directly on buffers of its own (DirectCublas): issue 15's "≥ 0.9 of direct cuBLAS at the
// model's shapes". batch > 1: a batched product (the softmax attention's per-head products).
CaseResult gpu_gemm_case(Device device, int64_t batch, int64_t M, int64_t K, int64_t N, double min_s) {
  Generator gen(1);
  const Shape sa = batch == 1 ? Shape{M, K} : Shape{batch, M, K}, sb = batch == 1 ? Shape{K, N} : Shape{batch, K, N};
  const Tensor a = Tensor::uniform(sa, gen, -1, 1).to(device), b = Tensor::uniform(sb, gen, -1, 1).to(device);
  const DirectCublas direct(device.index(), batch, M, K, N);
  auto t = time_pair(
      [&] {
        Tensor c;
        for (int i = 0; i < kGpuCalls; ++i) c = ops::matmul(a, b);
        wait_for_device(c);
      },
      [&] { direct.run(kGpuCalls); }, min_s);
  const double flops = direct.flops_per_call() * kGpuCalls;
  const std::string name = batch == 1 ? fmt::format("matmul_{}x{}x{}", M, K, N)
                                      : fmt::format("batched_matmul_{}x{}x{}x{}", batch, M, K, N);
  return {name, "GFLOP/s", flops / t.a_seconds / 1e9, flops / t.b_seconds / 1e9,
          batch == 1 ? "cublasSgemm, direct" : "cublasSgemmStridedBatched, direct"};
}

// The fused causal product's forward + backward on the GPU (FLOPs counted as causal_linear_case does),
// against a direct 4096³ cublasSgemm (near the GPU's float32 peak).
CaseResult gpu_causal_linear_case(Device device, int64_t B, int64_t H, int64_t N, int64_t E, int64_t M, double min_s) {
  Generator gen(4);
  auto uniform = [&](int64_t last, double lo) { return Tensor::uniform({B, H, N, last}, gen, lo, 1).to(device); };
  const Tensor q = uniform(E, 0), k = uniform(E, 0), v = uniform(M, -1), g = uniform(M, -1);
  Tensor out = Tensor::empty({B, H, N, M}, DType::f32, device), gq = Tensor::empty({B, H, N, E}, DType::f32, device),
         gk = Tensor::empty({B, H, N, E}, DType::f32, device), gv = Tensor::empty({B, H, N, M}, DType::f32, device);
  const int64_t S = 4096;
  const DirectCublas direct(device.index(), 1, S, S, S);
  auto t = time_pair(
      [&] {
        for (int i = 0; i < kGpuCalls; ++i) {
          kernels::on(out).causal_product_forward(q, k, v, out);
          kernels::on(gq).causal_product_backward(q, k, v, g, gq, gk, gv);
        }
        wait_for_device(gv);
      },
      [&] { direct.run(1); }, min_s);
  const double flops = 2.0 * 6.0 * double(B * H * N) * double(E) * double(M) * kGpuCalls;
  return {fmt::format("causal-linear_{}x{}x{}x{}x{}", B, H, N, E, M), "GFLOP/s", flops / t.a_seconds / 1e9,
          direct.flops_per_call() / t.b_seconds / 1e9, "cublasSgemm 4096^3, direct"};
}

// The GPU's cases: the paper's MNIST (batch 10 × 784 rows) and CIFAR-10 (4 × 3,072) layer products at
// d_model 256 and d_ff 1,024, the MNIST softmax's per-head products (10 × 8 heads, 784 × 32 · 32 × 784),
// and the causal product at the MNIST shape and at N = 65,536.
std::vector<std::pair<std::string, std::function<CaseResult()>>> gpu_cases(Device d, double s) {
  return {
      {"matmul_7840x256x256", [=] { return gpu_gemm_case(d, 1, 7840, 256, 256, s); }},
      {"matmul_7840x256x1024", [=] { return gpu_gemm_case(d, 1, 7840, 256, 1024, s); }},
      {"matmul_7840x1024x256", [=] { return gpu_gemm_case(d, 1, 7840, 1024, 256, s); }},
      {"matmul_12288x256x256", [=] { return gpu_gemm_case(d, 1, 12288, 256, 256, s); }},
      {"matmul_12288x256x1024", [=] { return gpu_gemm_case(d, 1, 12288, 256, 1024, s); }},
      {"matmul_12288x1024x256", [=] { return gpu_gemm_case(d, 1, 12288, 1024, 256, s); }},
      {"batched_matmul_80x784x32x784", [=] { return gpu_gemm_case(d, 80, 784, 32, 784, s); }},
      {"causal-linear_10x8x784x32x32", [=] { return gpu_causal_linear_case(d, 10, 8, 784, 32, 32, s); }},
      {"causal-linear_1x8x65536x32x32", [=] { return gpu_causal_linear_case(d, 1, 8, 65536, 32, 32, s); }},
  };
}

// The CPU's cases, each with the name --filter matches.
std::vector<std::pair<std::string, std::function<CaseResult()>>> cpu_cases(double s) {
  const int64_t M4 = int64_t(1) << 22;
  return {
      {"matmul_6272x256x256", [=] { return gemm_case(6272, 256, 256, s); }},
      {"matmul_6272x256x1024", [=] { return gemm_case(6272, 256, 1024, s); }},
      {"matmul_6272x1024x256", [=] { return gemm_case(6272, 1024, 256, s); }},
      {"batched_matmul_64x784x32x784", [=] { return batched_gemm_case(64, 784, 32, 784, s); }},
      {"add_16M_f32", [=] { return memory_case("add", int64_t(1) << 24, s); }},
      {"softmax_rows_16M_f32", [=] { return memory_case("softmax_rows", int64_t(1) << 24, s); }},
      {"softmax_fwd_bwd_6M_f32", [=] { return memory_case("softmax_fwd_bwd", int64_t(784) << 13, s); }},
      {"layer_norm_fwd_bwd_4M_f32", [=] { return memory_case("layer_norm_fwd_bwd", M4, s); }},
      {"causal-linear_10x10x1000x32x64", [=] { return causal_linear_case(10, 10, 1000, 32, 64, s); }},
      {"exp_4M_f32", [=] { return memory_case("exp", M4, s); }},
      {"log_4M_f32", [=] { return memory_case("log", M4, s); }},
      {"tanh_4M_f32", [=] { return memory_case("tanh", M4, s); }},
      {"sigmoid_4M_f32", [=] { return memory_case("sigmoid", M4, s); }},
      {"gelu_4M_f32", [=] { return memory_case("gelu", M4, s); }},
      {"softplus_4M_f32", [=] { return memory_case("softplus", M4, s); }},
      {"log_sigmoid_4M_f32", [=] { return memory_case("log_sigmoid", M4, s); }},
      {"softplus_backward_4M_f32", [=] { return memory_case("softplus_backward", M4, s); }},
      {"uniform_4M_f32", [=] { return memory_case("uniform", M4, s); }},
      {"dropout_mask_4M_f32", [=] { return memory_case("dropout_mask", M4, s); }},
      {"dropout_fwd_bwd_4M_f32", [=] { return dropout_case(M4, s); }},
      {"masked_softmax_causal_4M_f32", [=] { return memory_case("masked_softmax_causal", int64_t(784) * 784 * 8, s); }},
      {"lstm_fwd_bwd_8x200x256", [=] { return lstm_case(8, 200, 256, s); }},
      {"sum_rows_6M_f32", [=] { return memory_case("sum_rows", int64_t(784) << 13, s); }},
      {"sum_columns_4M_f32", [=] { return memory_case("sum_columns", M4, s); }},
  };
}

}  // namespace

void run_kernel_benchmarks(const KernelBenchOptions& opt) {
  const Device device = Device::parse(opt.device);
  check_device_available(device);  // a missing GPU fails before any case
  LINTRA_CHECK(device.is_cpu() || device.is_cuda(), "bench kernels: no cases for device {} (cpu or cuda:N)",
               device.str());
  const bool gpu = device.is_cuda();
  fmt::print("lintra bench kernels — {}{}\n", machine_line(), gpu ? ", device " + device.str() : "");
  fmt::print("each case: lintra and the reference timed alternately{}, best of each; ratio = lintra / reference\n\n",
             gpu ? fmt::format(", {} calls then a wait for the device", kGpuCalls) : "");
  fmt::print("{:<32} {:>12} {:>12} {:>8}  {}\n", "case", "lintra", "reference", "ratio", "unit (reference)");
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [name, run] : gpu ? gpu_cases(device, opt.min_seconds) : cpu_cases(opt.min_seconds)) {
    if (!opt.filter.empty() && name.find(opt.filter) == std::string::npos) continue;
    const CaseResult r = run();
    const double ratio = r.lintra / r.reference;
    fmt::print("{:<32} {:>12.2f} {:>12.2f} {:>8.3f}  {} ({})\n", r.name, r.lintra, r.reference, ratio, r.unit,
               r.reference_name);
    std::fflush(stdout);
    nlohmann::ordered_json row = {{"name", r.name}, {"lintra", r.lintra}, {"reference", r.reference},
                                  {"ratio", ratio}, {"unit", r.unit}, {"reference_is", r.reference_name}};
    if (gpu) {
      row["device"] = device.str();
      row["cpu"] = cpu_model();
    } else {
      row["cpu"] = cpu_model();
      row["simd_target"] = simd_target();
      row["blas_core"] = blas_core();
      row["blas_core_note"] = blas_core_note();
      row["threads"] = num_threads();
    }
    out.push_back(std::move(row));
  }
  if (!opt.json_path.empty()) write_bench_json(opt.json_path, out, "kernels");
}

}  // namespace lintra::bench
