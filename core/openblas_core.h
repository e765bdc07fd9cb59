// openblas_core.h — which of OpenBLAS's kernel sets lintra asks for on this CPU.
//
// Debian's OpenBLAS 0.3.21 picks its kernels once, when it is loaded, from OPENBLAS_CORETYPE or else
// from the CPU, and it picks badly on some: recent Intel server CPUs (Sapphire/Emerald Rapids) get its
// generic PRESCOTT kernels (one-core sgemm 13 against 86 GFLOP/s), Zen 4 its AVX-512 kernels, which are
// blocked for Intel's two full-width FMA ports and lose to its AVX2 (Haswell) ones there. lintra's main sets OPENBLAS_CORETYPE to this pick when the
// user has not set it, and re-executes itself (app/main.cpp); a value the environment sets wins, and the
// bench headers say when it differs from the pick (bench/timer.h).
#pragma once

namespace lintra {

// "Haswell", "SkylakeX" or "Cooperlake" by the CPU's features, except on AMD family 25 (Zen 3, Zen 4):
// Haswell, where the AVX2 kernels beat the AVX-512 ones (one-thread sgemm at the paper's layer shapes
// 1.04–1.08×, the CIFAR-10 steps 1.04–1.06×; experiments/kernels/README.md, session 28). Zen 5's
// full-width units keep Cooperlake: its AVX-512 sgemm runs 1.8× the Haswell one (sessions 11 and 31).
// Null without AVX2: OpenBLAS's own pick.
const char* openblas_core_for_this_cpu();

}  // namespace lintra
