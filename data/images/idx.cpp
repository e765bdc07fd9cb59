// idx.cpp — IDX reading/encoding with file + byte-offset errors, and MnistDataset.
#include "data/images/idx.h"

#include <cstring>

#include "core/error.h"
#include "data/files/digest.h"
#include "data/files/file_io.h"

namespace lintra::data {

namespace fs = std::filesystem;

namespace {

uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

}  // namespace

IdxArray read_idx(const fs::path& path, int rank) {
  IdxArray out = parse_idx(read_file_maybe_gz(path), path.string(), rank);
  out.path = path;
  return out;
}

IdxArray parse_idx(std::vector<uint8_t> bytes, const std::string& file, int rank) {
  LINTRA_CHECK(rank >= 1 && rank <= 255, "read_idx: rank {} out of range", rank);
  const int64_t file_size = int64_t(bytes.size());
  LINTRA_CHECK(file_size >= 4,
               "'{}': truncated IDX file: the 4-byte magic at byte offset 0 is cut off at byte offset {}", file,
               file_size);
  const uint32_t expected_magic = 0x00000800u + uint32_t(rank);
  const uint32_t magic = load_be32(bytes.data());
  LINTRA_CHECK(magic == expected_magic,
               "'{}': bad IDX magic 0x{:08x} at byte offset 0, expected 0x{:08x} (unsigned bytes, {} dims)", file,
               magic, expected_magic, rank);

  IdxArray out;
  out.path = file;
  out.data_offset = 4 + 4 * int64_t(rank);
  LINTRA_CHECK(file_size >= out.data_offset,
               "'{}': truncated IDX header: {} dims need {} header bytes, the file ends at byte offset {}", file,
               rank, out.data_offset, file_size);
  const int64_t available = file_size - out.data_offset;
  // The product of the dims, saturated so that huge (corrupt) counts cannot overflow.
  constexpr int64_t kHuge = int64_t(1) << 62;
  int64_t needed = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = load_be32(bytes.data() + 4 + 4 * d);
    out.dims.push_back(dim);
    needed = (dim != 0 && needed > kHuge / dim) ? kHuge : needed * dim;
  }
  LINTRA_CHECK(needed <= available,
               "'{}': the IDX header declares dims {} (count {} at byte offset 4) = {} data bytes from byte offset {}"
               " to {}, but the file ends at byte offset {}: truncated file, or a count larger than the file",
               file, out.dims, out.dims[0], needed, out.data_offset, out.data_offset + needed, file_size);
  LINTRA_CHECK(needed == available, "'{}': {} unexpected bytes after the IDX data (dims {}), from byte offset {}",
               file, available - needed, out.dims, out.data_offset + needed);
  out.data.assign(bytes.begin() + out.data_offset, bytes.end());
  return out;
}

std::vector<uint8_t> encode_idx(const std::vector<int64_t>& dims, const std::vector<uint8_t>& data) {
  LINTRA_CHECK(!dims.empty() && dims.size() <= 255, "encode_idx: {} dims", dims.size());
  std::vector<uint8_t> out(4 + 4 * dims.size());
  store_be32(out.data(), 0x00000800u + uint32_t(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    LINTRA_CHECK(dims[d] >= 0 && dims[d] <= int64_t(UINT32_MAX), "encode_idx: dim {} out of range", dims[d]);
    store_be32(out.data() + 4 + 4 * d, uint32_t(dims[d]));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

fs::path find_plain_or_gz(const fs::path& dir, const std::string& base) {
  fs::path plain = dir / base;
  if (fs::exists(plain)) return plain;
  fs::path gz = dir / (base + ".gz");
  if (fs::exists(gz)) return gz;
  LINTRA_FAIL("missing data file: neither '{}' nor '{}' exists (for MNIST run `lintra data fetch mnist`)",
              plain.string(), gz.string());
}

namespace {

std::string split_prefix(const std::string& split) {
  LINTRA_CHECK(split == "train" || split == "test", "MnistDataset: split must be 'train' or 'test', got '{}'",
               split);
  return split == "train" ? "train" : "t10k";
}

}  // namespace

MnistDataset::MnistDataset(const fs::path& dir, const std::string& split)
    : name_((dir.filename().empty() ? dir.parent_path().filename() : dir.filename()).string() + "/" + split) {
  const std::string prefix = split_prefix(split);
  fs::path images = find_plain_or_gz(dir, prefix + "-images-idx3-ubyte");
  fs::path labels = find_plain_or_gz(dir, prefix + "-labels-idx1-ubyte");
  load(images, labels);
}

MnistDataset::MnistDataset(const fs::path& images_file, const fs::path& labels_file, std::string name)
    : name_(std::move(name)) {
  load(images_file, labels_file);
}

MnistDataset MnistDataset::from_arrays(IdxArray images, IdxArray labels, std::string name) {
  MnistDataset d;
  d.name_ = std::move(name);
  d.load(std::move(images), std::move(labels));
  return d;
}

void MnistDataset::load(const fs::path& images_file, const fs::path& labels_file) {
  load(read_idx(images_file, 3), read_idx(labels_file, 1));
}

void MnistDataset::load(IdxArray images, IdxArray labels) {
  const std::string images_file = images.path.string(), labels_file = labels.path.string();
  LINTRA_CHECK(images.dims.size() == 3 && labels.dims.size() == 1,
               "MnistDataset: images must have 3 dims and labels 1, got {} ('{}') and {} ('{}')", images.dims.size(),
               images_file, labels.dims.size(), labels_file);
  LINTRA_CHECK(images.dims[0] == labels.dims[0],
               "image/label count mismatch: '{}' holds {} images (count at byte offset 4) but '{}' holds {} "
               "labels (count at byte offset 4)",
               images_file, images.dims[0], labels_file, labels.dims[0]);
  for (size_t i = 0; i < labels.data.size(); ++i) {
    LINTRA_CHECK(labels.data[i] < kNumClasses, "'{}': label {} of sample {} at byte offset {} is not in 0..{}",
                 labels_file, labels.data[i], i, labels.data_offset + int64_t(i), kNumClasses - 1);
  }
  count_ = images.dims[0];
  rows_ = images.dims[1];
  cols_ = images.dims[2];
  pixels_ = std::move(images.data);
  labels_ = std::move(labels.data);
}

Sample MnistDataset::get(int64_t i) const {
  check_index(i);
  const int64_t n = rows_ * cols_;
  Sample s;
  s.bytes.assign(pixels_.begin() + i * n, pixels_.begin() + (i + 1) * n);
  s.label = labels_[size_t(i)];
  return s;
}

uint64_t MnistDataset::content_digest() const {
  Xxh3 h;
  h.update_vector(pixels_);
  h.update_vector(labels_);
  return h.digest();
}

}  // namespace lintra::data
