// idx.h — the IDX file format (MNIST, Fashion-MNIST) and MnistDataset.
//
// IDX: a big-endian 32-bit magic 0x000008NN (0x08 = unsigned bytes, NN = number of dims), NN
// big-endian uint32 dims, then the bytes in row-major order. MNIST images are 0x00000803
// (count, 28, 28) and labels 0x00000801 (count). Gzipped files (Fashion-MNIST's *.gz) are read
// transparently; byte offsets in errors then count decompressed bytes.
//
// Every error names the file and the byte offset of what is wrong (DESIGN.md §9).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace lintra::data {

struct IdxArray {
  std::filesystem::path path;
  std::vector<int64_t> dims;  // e.g. {60000, 28, 28}
  std::vector<uint8_t> data;  // product(dims) bytes, row-major
  int64_t data_offset = 0;    // byte offset of data[0] in the file: 4 + 4 * dims.size()
};

// Reads an IDX file of unsigned bytes with exactly `rank` dims (magic 0x00000800 + rank). Throws on a
// missing file, a wrong magic, a truncated header, dims that need more bytes than the file holds, or
// bytes left over after the data.
IdxArray read_idx(const std::filesystem::path& path, int rank);
// The same checks on bytes already read (decompressed); `name` is the file messages name.
IdxArray parse_idx(std::vector<uint8_t> bytes, const std::string& name, int rank);

// Encodes an IDX file of unsigned bytes (used by tests and preparers).
std::vector<uint8_t> encode_idx(const std::vector<int64_t>& dims, const std::vector<uint8_t>& data);

// MNIST-layout image classification data: sample i is bytes = the image's rows×cols pixels in
// raster order (784 for MNIST) and label = its class (0..9).
class MnistDataset : public Dataset {
 public:
  // split "train" reads train-{images-idx3,labels-idx1}-ubyte, "test" reads t10k-…; each file may
  // also be present as <name>.gz. The data set's name is "<dir name>/<split>", e.g. "mnist/train".
  MnistDataset(const std::filesystem::path& dir, const std::string& split);
  MnistDataset(const std::filesystem::path& images_file, const std::filesystem::path& labels_file,
               std::string name);
  // From arrays already read (read_idx / parse_idx): images (count, rows, cols), labels (count).
  static MnistDataset from_arrays(IdxArray images, IdxArray labels, std::string name);

  int64_t size() const override { return count_; }
  Sample get(int64_t i) const override;
  std::string name() const override { return name_; }
  uint64_t content_digest() const override;  // XXH3-64 of the image bytes, then the label bytes
  int64_t length(int64_t) const override { return rows_ * cols_; }

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  const std::vector<uint8_t>& labels() const { return labels_; }

  static constexpr int64_t kNumClasses = 10;

 private:
  MnistDataset() = default;
  void load(const std::filesystem::path& images_file, const std::filesystem::path& labels_file);
  void load(IdxArray images, IdxArray labels);
  std::string name_;
  int64_t count_ = 0, rows_ = 0, cols_ = 0;
  std::vector<uint8_t> pixels_;  // count × rows × cols
  std::vector<uint8_t> labels_;  // count
};

// <dir>/<base> if it exists, else <dir>/<base>.gz if that exists; throws naming both otherwise.
std::filesystem::path find_plain_or_gz(const std::filesystem::path& dir, const std::string& base);

}  // namespace lintra::data
