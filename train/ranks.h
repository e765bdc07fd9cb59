// ranks.h — the ranks of a data-parallel run meet and check one another: who each is (pid, host,
// threads: for train.log, and for whoever must find a rank's process), that all train the same thing
// (the same config, data and model), and that their parameters — which every update changes by the
// same bits on every rank — are still the same.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/distributed/communicator.h"
#include "train/optim/optimizer.h"

namespace lintra::train {

struct RankInfo {
  int64_t pid = 0;
  std::string host;
  int64_t threads = 0;
  std::string trains;  // what it trains, as digests ("config … data … model …")
};
// This process: its pid and host name.
RankInfo this_rank(int64_t threads, std::string trains);

// Collective: every rank's info, in rank order. Throws, on every rank, naming every rank whose
// `trains` differs from rank 0's.
std::vector<RankInfo> meet_ranks(dist::Communicator& comm, const RankInfo& mine);
// "2 ranks over MPI (Open MPI v4.1.4): rank 0 pid 812 on node-a (1 thread), rank 1 pid 813 …"
std::string describe_ranks(const dist::Communicator& comm, const std::vector<RankInfo>& ranks);

// Collective: throws, on every rank, when some rank's parameters (XXH3 of their bytes, in order)
// differ from rank 0's after `step` updates.
void check_replicas(dist::Communicator& comm, const std::vector<NamedParam>& params, int64_t step);

}  // namespace lintra::train
