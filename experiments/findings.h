// findings.h — the paper's finding for each training table, checked on the rows' numbers; each
// returns markdown bullets ending in **holds** or **does not hold**.
#pragma once

#include <map>
#include <string>

#include "experiments/row_result.h"

namespace lintra::experiments {

// Copy task (Figure 2): linear reaches softmax's loss; lsh-4 lags behind both.
std::string copy_findings(const std::map<std::string, RowResult>& rows);
// MNIST / CIFAR-10: linear within 0.05 bits/dim of softmax; softmax and linear both beat lsh-1.
std::string image_findings(const std::map<std::string, RowResult>& rows);
// Speech: softmax has the lowest PER; linear trains at least 2× faster per epoch (epoch_s: seconds per epoch).
std::string speech_findings(const std::map<std::string, RowResult>& rows, const std::map<std::string, double>& epoch_s);

}  // namespace lintra::experiments
