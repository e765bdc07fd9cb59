// reduce.h — reductions of named values over the ranks (metric sums of training windows and
// evaluations, where a rank may lack a name another has: one that saw no batch has none).
#pragma once

#include <map>
#include <string>

#include "train/distributed/communicator.h"

namespace lintra::dist {

// The sum over the ranks of each name of any rank (a rank without it counts 0), added in rank
// order: the same map on every rank.
std::map<std::string, double> sum_named(Communicator& comm, const std::map<std::string, double>& mine);

}  // namespace lintra::dist
