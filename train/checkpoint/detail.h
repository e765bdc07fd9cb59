// detail.h — internals shared by checkpoint.cpp and checkpoint_tools.cpp. Not public API.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "train/checkpoint/checkpoint.h"

namespace lintra::detail {

// The file digest over (dataset path, its xxh3) pairs; see checkpoint.h.
uint64_t file_digest(std::vector<std::pair<std::string, uint64_t>> entries);

std::string hex(uint64_t v);                                             // "0x00ab…" (16 digits)
std::vector<std::string> split_name(const std::string& name);           // "a.b.c" -> {a, b, c}
std::string dotted_to_path(const std::string& root, const std::string& dotted);  // ("/model", "a.b") -> "/model/a/b"

struct ReadResult {
  CheckpointData data;
  std::vector<std::string> problems;  // digest mismatches and tree inconsistencies
  int64_t datasets = 0;
  int64_t bytes = 0;
  uint64_t file_digest = 0;  // as stored
  int64_t model_params = 0;  // elements of the /model tensors
  int64_t model_bytes = 0;
};
// Reads and verifies everything; throws lintra::Error (naming the file) for what stops reading,
// collects what does not (digest mismatches) into problems. Without keep_data, tensors are checked
// through one scratch buffer and come back undefined (names only): verification of a large
// checkpoint then needs memory for its largest tensor, not for all of them.
ReadResult read_checkpoint(const std::string& path, bool keep_data);

// The first problem, then up to five more on following lines.
std::string problems_message(const std::vector<std::string>& problems);

}  // namespace lintra::detail
