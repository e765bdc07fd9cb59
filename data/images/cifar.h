// cifar.h — the CIFAR-10 binary format (cifar-10-batches-bin) and Cifar10Dataset.
//
// A file is a sequence of 3073-byte records: 1 label byte (0..9), then the 32×32 image as 1024 red,
// 1024 green and 1024 blue bytes (each plane row-major). photos32 (DATA.md) is written in the same
// format. Sample i is bytes = 3072 sub-pixels in the paper's order, HWC raster with the channel
// fastest (r, g, b of pixel 0, then of pixel 1, …), and label = the record's label.
//
// Errors name the file: a missing file, a size that is not a multiple of 3073 (with the size), a
// label > 9 (with the record number and its byte offset).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace lintra::data {

class Cifar10Dataset : public Dataset {
 public:
  static constexpr int64_t kSide = 32;
  static constexpr int64_t kPixels = kSide * kSide;           // 1024
  static constexpr int64_t kImageBytes = 3 * kPixels;         // 3072
  static constexpr int64_t kRecordBytes = 1 + kImageBytes;    // 3073
  static constexpr int64_t kNumClasses = 10;

  // split "train" reads <dir>/data_batch_1.bin … data_batch_5.bin, "test" reads <dir>/test_batch.bin.
  // The data set's name is "<dir name>/<split>", e.g. "cifar-10-batches-bin/train".
  Cifar10Dataset(const std::filesystem::path& dir, const std::string& split);
  // The records of `files`, in order. (A named factory: a braced {path} would otherwise silently pick
  // the (dir, split) constructor.)
  static Cifar10Dataset from_files(const std::vector<std::filesystem::path>& files, std::string name);

  int64_t size() const override { return int64_t(labels_.size()); }
  Sample get(int64_t i) const override;
  std::string name() const override { return name_; }
  uint64_t content_digest() const override;  // XXH3-64 of the labels, then the image planes
  int64_t length(int64_t) const override { return kImageBytes; }

  const std::vector<uint8_t>& labels() const { return labels_; }

  // The split's file names, in order (e.g. for preparers that write the format).
  static std::vector<std::string> split_files(const std::string& split);

 private:
  Cifar10Dataset(const std::vector<std::filesystem::path>& files, std::string name);
  std::string name_;
  std::vector<uint8_t> planes_;  // size() × 3072, CIFAR's planar (CHW) layout as stored
  std::vector<uint8_t> labels_;
};

// Checks the records of one file's bytes and appends their labels and planar images; `name` is the
// file messages name (a size that is not a multiple of 3073, a label > 9 with its record and offset).
void parse_cifar_records(const std::vector<uint8_t>& bytes, const std::string& name, std::vector<uint8_t>& labels,
                         std::vector<uint8_t>& planes);

// CHW planes (1024 R, 1024 G, 1024 B) → HWC with the channel fastest; `out` holds 3072 bytes.
void cifar_planar_to_interleaved(const uint8_t* planar, uint8_t* out);

}  // namespace lintra::data
