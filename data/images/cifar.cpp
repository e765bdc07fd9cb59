// cifar.cpp — CIFAR-10 binary reading with file/record/offset errors.
#include "data/images/cifar.h"

#include "core/error.h"
#include "data/files/digest.h"
#include "data/files/file_io.h"

namespace lintra::data {

namespace fs = std::filesystem;

std::vector<std::string> Cifar10Dataset::split_files(const std::string& split) {
  if (split == "train") {
    return {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"};
  }
  LINTRA_CHECK(split == "test", "Cifar10Dataset: split must be 'train' or 'test', got '{}'", split);
  return {"test_batch.bin"};
}

namespace {

std::vector<fs::path> split_paths(const fs::path& dir, const std::string& split) {
  std::vector<fs::path> paths;
  for (const std::string& f : Cifar10Dataset::split_files(split)) paths.push_back(dir / f);
  return paths;
}

std::string dir_name(const fs::path& dir) {
  return (dir.filename().empty() ? dir.parent_path().filename() : dir.filename()).string();
}

}  // namespace

Cifar10Dataset::Cifar10Dataset(const fs::path& dir, const std::string& split)
    : Cifar10Dataset(split_paths(dir, split), dir_name(dir) + "/" + split) {}

Cifar10Dataset Cifar10Dataset::from_files(const std::vector<fs::path>& files, std::string name) {
  return Cifar10Dataset(files, std::move(name));
}

Cifar10Dataset::Cifar10Dataset(const std::vector<fs::path>& files, std::string name) : name_(std::move(name)) {
  LINTRA_CHECK(!files.empty(), "Cifar10Dataset '{}': no files given", name_);
  for (const fs::path& path : files) {
    LINTRA_CHECK(fs::exists(path),
                 "missing CIFAR-10 file '{}' (expected the cifar-10-batches-bin layout: data_batch_1.bin … "
                 "data_batch_5.bin and test_batch.bin; for photos32, `lintra data prepare photos32` writes it)",
                 path.string());
  }
  for (const fs::path& path : files) parse_cifar_records(read_file(path), path.string(), labels_, planes_);
}

void parse_cifar_records(const std::vector<uint8_t>& bytes, const std::string& name, std::vector<uint8_t>& labels,
                         std::vector<uint8_t>& planes) {
  constexpr int64_t kRecord = Cifar10Dataset::kRecordBytes;
  const int64_t size = int64_t(bytes.size());
  LINTRA_CHECK(size % kRecord == 0,
               "'{}': size {} bytes is not a multiple of the {}-byte CIFAR-10 record ({} whole records, then {} "
               "bytes from byte offset {})",
               name, size, kRecord, size / kRecord, size % kRecord, size - size % kRecord);
  const int64_t records = size / kRecord;
  for (int64_t r = 0; r < records; ++r) {
    const uint8_t* rec = bytes.data() + r * kRecord;
    LINTRA_CHECK(rec[0] < Cifar10Dataset::kNumClasses, "'{}': label {} of record {} at byte offset {} is not in 0..{}",
                 name, rec[0], r, r * kRecord, Cifar10Dataset::kNumClasses - 1);
    labels.push_back(rec[0]);
    planes.insert(planes.end(), rec + 1, rec + kRecord);
  }
}

void cifar_planar_to_interleaved(const uint8_t* planar, uint8_t* out) {
  for (int64_t p = 0; p < Cifar10Dataset::kPixels; ++p) {
    for (int64_t c = 0; c < 3; ++c) out[3 * p + c] = planar[c * Cifar10Dataset::kPixels + p];
  }
}

Sample Cifar10Dataset::get(int64_t i) const {
  check_index(i);
  Sample s;
  s.bytes.resize(size_t(kImageBytes));
  cifar_planar_to_interleaved(planes_.data() + i * kImageBytes, s.bytes.data());
  s.label = labels_[size_t(i)];
  return s;
}

uint64_t Cifar10Dataset::content_digest() const {
  Xxh3 h;
  h.update_vector(labels_);
  h.update_vector(planes_);
  return h.digest();
}

}  // namespace lintra::data
