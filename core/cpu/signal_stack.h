#pragma once
// An alternate signal stack for each thread that enters oneDNN's float32 GEMM.
//
// Why: oneDNN 2.6's JIT float32 GEMM kernels (jit_avx512_common_gemm_f32 on AVX-512, jit_avx_gemm_f32
// on AVX/AVX2), which dnnl_sgemm runs, point rsp at their heap workspace while they run whenever the
// sum is longer than fits their 16 KiB stack buffer (K > 84 on AVX-512). A signal handled on that
// thread meanwhile has its frame — a few KiB of saved registers — written below rsp, that is into
// the heap: it corrupts whatever lies there, and the process dies later somewhere unrelated (a
// SIGINT during training crashed in Var::backward a step after). Upstream fixed the kernels in 2026
// (uxlfoundation/oneDNN#4845, commit d090db10); Debian 12 ships 2.6. A handler installed with
// SA_ONSTACK runs on the thread's alternate stack when it has one, so its frame never lands at rsp:
// every handler lintra installs sets SA_ONSTACK (train/stop_signal.cpp), and this gives the thread
// the stack.
//
// Cost: one thread-local test per call; the first call on a thread maps a 64 KiB stack (or
// sysconf(_SC_SIGSTKSZ) × 4 if larger), freed when the thread exits. A thread that already has an
// alternate stack keeps it.

namespace lintra::kernels::cpu {

void ensure_alternate_signal_stack();

}  // namespace lintra::kernels::cpu
