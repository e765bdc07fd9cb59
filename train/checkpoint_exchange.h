// checkpoint_exchange.h — a data-parallel run's checkpoints between its ranks. Rank 0 alone reads
// and writes the run directory (which may be on a disk the other ranks cannot see): to save, it
// gathers every rank's own state (generators, loader position) into the one file; to resume, it
// sends what it read to every rank, which then restores the same parameters, optimizer and schedule,
// and its own generators and loader position (train_state.h).
#pragma once

#include <optional>
#include <vector>

#include "train/checkpoint/checkpoint.h"
#include "train/distributed/communicator.h"

namespace lintra::train {

// Collective: every rank's state, in rank order (on every rank).
std::vector<RankState> gather_rank_states(dist::Communicator& comm, const RankState& mine);
// Collective. On rank 0 `c` is what it loaded (nullopt: none); every rank returns rank 0's `c`.
std::optional<CheckpointData> share_checkpoint(dist::Communicator& comm, std::optional<CheckpointData> c);

}  // namespace lintra::train
