// photos32.h — `lintra data prepare photos32` (DATA.md "photos32"): the CIFAR-10 stand-in, 32×32
// patches of 33 natural photos from four Debian packages, written in CIFAR-10's binary format.
//
// prepare_photos32(cache_dir, opt, log) leaves in <cache_dir>/photos32/ exactly
//   data_batch_1.bin … data_batch_5.bin  (train_count records, split as evenly as possible; 10,000 each
//                                         by default) and test_batch.bin (test_count records),
// each record 1 label byte + 1024 R + 1024 G + 1024 B (Cifar10Dataset reads the folder unchanged),
// plus photos32.stamp (recipe version, seed, counts, each batch's size and XXH3-64) and debs/.
//   1. If the stamp matches the options and every batch has its size, it checks each batch's XXH3
//      against the stamp and returns (idempotent; ~0.2 s). A mismatching batch is an error naming it
//      (delete the folder and prepare again); other options rebuild the batches.
//   2. Otherwise: `apt-get download PKG=VERSION` for the .debs not yet in <dir>/debs (downloaded
//      into a temp folder in <dir>, then moved in; they are kept, so a rebuild does not download);
//      `dpkg-deb -x` of each into a temp folder (no install); each of the 33 photos checked against
//      its sha256 (the table in photos32.cpp, copied from DATA.md's data/photos32.sha256); decoded
//      with stb_image (Debian's libstb); patches drawn as photos32_patches.h describes, in parallel;
//      the batches written under temp names and renamed, then the stamp.
// The photos' order is the table's: label = photo index mod 10 (meaningless; generation ignores it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/images/mnist_fetch.h"  // LogFn
#include "data/images/photos32_patches.h"

namespace lintra::data {

struct Photos32Options {
  uint64_t seed = 1;           // Philox seed of every patch's stream
  int64_t train_count = 50000; // records over data_batch_1..5.bin
  int64_t test_count = 10000;  // records in test_batch.bin
};

struct DebPackage {
  std::string name;
  std::string version;  // as apt-get download takes it, e.g. "4:5.27.5-2"
};

struct Photos32Source {
  std::string package;  // a photos32_packages() name
  std::string path;     // inside the package, e.g. "usr/share/wallpapers/Kite/contents/images/2560x1600.jpg"
  std::string sha256;
};

const std::vector<DebPackage>& photos32_packages();
const std::vector<Photos32Source>& photos32_sources();  // 33, in label order

// <debs_dir>/<name>_<version, ':' written %3a>_all.deb — apt-get download's own file name.
std::filesystem::path photos32_deb_path(const std::filesystem::path& debs_dir, const DebPackage& package);
// True when <cache_dir>/photos32/debs holds all four .debs (no download needed).
bool photos32_debs_present(const std::filesystem::path& cache_dir);

// Reads the 33 photos from `unpacked_root`, where package P was unpacked into <unpacked_root>/P;
// checks every sha256 first (a missing or mismatching photo is an error naming the file, the
// expected and the actual digest), then decodes them and builds their pyramids (in parallel).
std::vector<PhotoPyramid> load_photos32(const std::filesystem::path& unpacked_root, const LogFn& log = {});

// dpkg-deb -x of the four .debs in `debs_dir` into a temp folder under `temp_parent`, then
// load_photos32 of it; the unpacked files are removed again.
std::vector<PhotoPyramid> load_photos32_from_debs(const std::filesystem::path& debs_dir,
                                                  const std::filesystem::path& temp_parent, const LogFn& log = {});

// The CIFAR-10 file names and, per file, its number of records, for `train_count` + `test_count`.
struct Photos32Batch {
  std::string file;
  int64_t first = 0;  // first record of its split
  int64_t count = 0;
};
std::vector<Photos32Batch> photos32_batches(int64_t train_count, int64_t test_count);

// Writes the records (3073 bytes each) into dir's data_batch_1..5.bin and test_batch.bin, each
// through "<name>.partial" and a rename, so a killed run never leaves a partial file under a final name.
void write_photos32_batches(const std::filesystem::path& dir, const std::vector<uint8_t>& train_records,
                            const std::vector<uint8_t>& test_records);

// Builds (or only verifies) <cache_dir>/photos32; returns that folder.
std::filesystem::path prepare_photos32(const std::filesystem::path& cache_dir, const Photos32Options& opt = {},
                                       const LogFn& log = {});

}  // namespace lintra::data
