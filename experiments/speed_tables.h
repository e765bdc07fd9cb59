// speed_tables.h — the speed tables of `lintra reproduce`, which measure instead of training:
//
//   throughput  Table 4 (and the images/s columns of Tables 1 and 2): images per second of generation
//               with the paper's protocols (PAPER.md §2.3) — causal-linear through its recurrent form,
//               stateful-softmax with a key/value cache, softmax and reformer (lsh-1) recomputing the
//               prefix for every pixel — at a batch > 1, for the MNIST model (8 layers) and the CIFAR-10
//               model (16 layers), d_model 256: the paper's sizes at `cpu` scale too, since speed needs
//               no trained weights.
//   latency     Table 5: seconds for one image at batch 1 on this CPU, same models and protocols.
//   scaling     Figure 1: attention forward + backward time and peak memory per sample against N on
//               log–log axes (softmax, lsh-1, lsh-4, lsh-8, causal-linear), N = 2^9 … 2^16.
//
// Each writes <results>/<table>-<scale>.md (paper beside lintra, the command, the machine, the wall
// time), a JSON of the raw rows, and for scaling two PNG plots. `smoke` runs tiny models for tests.
// throughput and latency check the paper's claims about their tables (speed_claims.h) from two timings
// of the rows each claim compares; scaling checks Figure 1's finding at every length.
#pragma once

#include "experiments/reproduce.h"

namespace lintra::experiments {

bool is_speed_table(const std::string& table);
int run_speed_table(const ReproduceCommand& cmd);

}  // namespace lintra::experiments
