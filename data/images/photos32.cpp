// photos32.cpp — photos32's sources (pinned by sha256), apt-get download + dpkg-deb -x, stb_image
// decoding, CIFAR-10 batch writing and the idempotence stamp.
//
// stb_image comes from Debian's libstb (libstb-dev): its libstb.so already holds the implementation,
// so this file includes the header for declarations only and data/CMakeLists.txt links -lstb (no
// STB_IMAGE_IMPLEMENTATION anywhere in lintra). Resizing is lintra's own integer area filter
// (photos32_patches.cpp), not stb_image_resize.
#include "data/images/photos32.h"

#include <stb/stb_image.h>

#include <chrono>
#include <exception>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "data/files/digest.h"
#include "data/files/file_io.h"
#include "data/files/sha256.h"
#include "data/files/shell.h"

namespace lintra::data {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// the sources (DATA.md, data/photos32.sha256: the checked list; its order is the label order)

const std::vector<DebPackage>& photos32_packages() {
  static const std::vector<DebPackage> packages = {
      {"python3-skimage", "0.19.3-8"},
      {"python3-sklearn", "1.2.1+dfsg-1"},
      {"mate-backgrounds", "1.26.0-1"},
      {"plasma-workspace-wallpapers", "4:5.27.5-2"},
  };
  return packages;
}

namespace {

Photos32Source skimage(const std::string& file, const std::string& sha256) {
  return {"python3-skimage", "usr/lib/python3/dist-packages/skimage/data/" + file, sha256};
}
Photos32Source sklearn(const std::string& file, const std::string& sha256) {
  return {"python3-sklearn", "usr/lib/python3/dist-packages/sklearn/datasets/images/" + file, sha256};
}
Photos32Source mate(const std::string& name, const std::string& sha256) {
  return {"mate-backgrounds", "usr/share/backgrounds/mate/nature/" + name + ".jpg", sha256};
}
Photos32Source plasma(const std::string& name, const std::string& sha256) {
  return {"plasma-workspace-wallpapers", "usr/share/wallpapers/" + name + "/contents/images/2560x1600.jpg", sha256};
}

}  // namespace

const std::vector<Photos32Source>& photos32_sources() {
  static const std::vector<Photos32Source> sources = {
      skimage("astronaut.png", "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"),
      skimage("chelsea.png", "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb"),
      skimage("coffee.png", "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7"),
      skimage("rocket.jpg", "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c"),
      skimage("hubble_deep_field.jpg", "3a19c5dd8a927a9334bb1229a6d63711b1c0c767fb27e2286e7c84a3e2c2f5f4"),
      skimage("retina.jpg", "38a07f36f27f095e818aea7b96d34202c05176d30253c66733f2e00379e9e0e6"),
      skimage("ihc.png", "f8dd1aa387ddd1f49d8ad13b50921b237df8e9b262606d258770687b0ef93cef"),
      sklearn("china.jpg", "8378025ad2519d649d02e32bd98990db4ab572357d9f09841c2fbfbb4fefad29"),
      sklearn("flower.jpg", "a77f6ec41e353afdf8bdff2ea981b2955535d8d83294f8cfa49cf4e423dd5638"),
      mate("Aqua", "5c30118205982da441bf7e6a1ada636a8a0be879408140b3148280c665ed6bce"),
      mate("Blinds", "f7aac0dcc2e06d0491643e84df3da1d9db7c4610f58806a880d56e074799f600"),
      mate("Dune", "8a67c2cb0be8c46b70c237311a4fa4d2b4ac7d39568135384787801fa5cc9a91"),
      mate("FreshFlower", "972b0a0c4e5e3fa93f4f244fc84bc64b121a5eac3aaa5856f1308c1f38a02f8e"),
      mate("Garden", "d3095ee09d425ef23d27155412136cf14fc3c9af76ca58b452f55e23da324e78"),
      mate("GreenMeadow", "8fa0de0aa4089f7319c9fb7a6d006d4cab6023e8c8853731557cff53567b4832"),
      mate("LadyBird", "e35a9a4126ef969c90b29c038058c5a575a20eadd84106a37bf1fa9931e7b61d"),
      mate("RainDrops", "3e4ea9671c28c90a86cf67b3db9daf18c4741587c596333a7529ca589aaa0c16"),
      mate("Storm", "77ca53077831d3237f73393a91fc879158abc046d852941c26e90de336356957"),
      mate("TwoWings", "665e5abf8a5399070a91a9a8e455fe071e5b61697ff78fdeda4e9843ef545aeb"),
      mate("Wood", "19c78500ac00a622e19907ab9cc7d06d46fe08c4a6142759a84195696150ec07"),
      mate("YellowFlower", "254da96256acb7add685679775a04d1e4a5bc8cd13e5a5a3d61351ce198a5306"),
      plasma("Autumn", "dfded25df13f5c2dfee68cafb23f69c3efb32b8a6931d82ebbe42de9810dd1e4"),
      plasma("BytheWater", "c272434ef39f2abf1ed48a15a8910088020f3165329a5092f3940ec9464bc05f"),
      plasma("ColdRipple", "05bef6722fc0ed81292cceb3ed026c38d17e510f3c84be7d68610c2b1a723c3f"),
      plasma("ColorfulCups", "6e0f3a72feb5a4a9fec191b77e34874c3c69e2d93040deb3f07773e73385023d"),
      plasma("DarkestHour", "8e3703fae3a3c217b1fc2b399b706cd3720584268d071ba153e4809daa55f1ce"),
      plasma("EveningGlow", "586682dcb362b9f620068f10138f87d0d3649939aef238adc5807cb951976a7a"),
      plasma("FallenLeaf", "95603a6560c7e8d50e0e03b3f4adbe39c5258c72528e74e4ecaea1daf4e499de"),
      plasma("Grey", "88c31d8944b7e6935d1b9a296654c692f0772cb512491713eb30a972a604c0ed"),
      plasma("Kite", "bdca288ce296a981e80659c021cf707caddc702c0c8d4247e60bd618476d47f8"),
      plasma("OneStandsOut", "cb507baf1dafdcae362264f3aba9483ed4be5f6c9fdd770f0ec0920c6d9e80fd"),
      plasma("Path", "7477457d7f17b736259f1b021864778ad4ba802cf3214e6728181ff29126bba8"),
      plasma("summer_1am", "c868b50789591dd42910153c768053f1ba0a98cb36bbfc2b7a96a1045d0477f8"),
  };
  return sources;
}

// ---------------------------------------------------------------------------------------------
// the .debs: apt-get download into a temp folder, kept in <dir>/debs

fs::path photos32_deb_path(const fs::path& debs_dir, const DebPackage& package) {
  std::string version;
  for (char c : package.version) version += (c == ':') ? std::string("%3a") : std::string(1, c);
  return debs_dir / (package.name + "_" + version + "_all.deb");
}

bool photos32_debs_present(const fs::path& cache_dir) {
  const fs::path debs = cache_dir / "photos32" / "debs";
  for (const DebPackage& p : photos32_packages()) {
    std::error_code ec;
    if (fs::file_size(photos32_deb_path(debs, p), ec) == 0 || ec) return false;
  }
  return true;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void download_missing_debs(const fs::path& dir, const fs::path& debs, const LogFn& say) {
  std::vector<const DebPackage*> missing;
  for (const DebPackage& p : photos32_packages()) {
    if (!fs::exists(photos32_deb_path(debs, p))) missing.push_back(&p);
  }
  if (missing.empty()) return;
  LINTRA_CHECK(have_program("apt-get"),
               "preparing photos32 needs apt-get (Debian's package tool) to download its source photos");
  fs::create_directories(debs);
  TempDir tmp("download", dir);  // inside the cache: the final rename stays on one file system
  std::string command = "cd " + shell_quote(tmp.path().string()) + " && apt-get download -q";
  std::string names;
  for (const DebPackage* p : missing) {
    command += " " + shell_quote(p->name + "=" + p->version);
    names += (names.empty() ? "" : ", ") + p->name;
  }
  say(fmt::format("photos32: apt-get download {} (up to 163 MB)", names));
  const auto start = Clock::now();
  run_shell_checked(command, "downloading photos32's Debian packages (if apt-get cannot find them: apt-get update)");
  for (const DebPackage* p : missing) {
    const fs::path got = photos32_deb_path(tmp.path(), *p);
    LINTRA_CHECK(fs::exists(got), "apt-get download of {}={} left no '{}'", p->name, p->version,
                 got.filename().string());
    fs::rename(got, photos32_deb_path(debs, *p));
  }
  say(fmt::format("photos32: downloaded into {} in {:.1f} s", debs.string(), seconds_since(start)));
}

// dpkg-deb -x of every package into <into>/<package>, the four at once.
void unpack_debs(const fs::path& debs, const fs::path& into) {
  LINTRA_CHECK(have_program("dpkg-deb"), "preparing photos32 needs dpkg-deb (Debian's dpkg) to unpack its .debs");
  std::vector<std::future<ShellResult>> jobs;
  std::vector<std::string> commands;
  for (const DebPackage& p : photos32_packages()) {
    const fs::path deb = photos32_deb_path(debs, p);
    LINTRA_CHECK(fs::exists(deb), "photos32: missing '{}' (prepare downloads it)", deb.string());
    commands.push_back("dpkg-deb -x " + shell_quote(deb.string()) + " " + shell_quote((into / p.name).string()));
    jobs.push_back(std::async(std::launch::async, run_shell, commands.back()));
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ShellResult r = jobs[i].get();
    LINTRA_CHECK(r.exit_code == 0, "unpacking a photos32 package failed (exit status {}): {}\n{}", r.exit_code,
                 commands[i], r.output);
  }
}

// ---------------------------------------------------------------------------------------------
// photos: sha256 check, then stb_image

std::vector<uint8_t> read_verified_photo(const fs::path& path, const std::string& expected) {
  LINTRA_CHECK(fs::exists(path), "photos32: missing photo '{}' (expected sha256 {}, actual: no such file)",
               path.string(), expected);
  std::vector<uint8_t> bytes = read_file(path);
  const std::string actual = sha256_hex(bytes.data(), bytes.size());
  LINTRA_CHECK(actual == expected, "photos32: wrong photo '{}': expected sha256 {}, actual {}", path.string(), expected,
               actual);
  return bytes;
}

RgbImage decode_photo(const std::vector<uint8_t>& bytes, const fs::path& path) {
  int w = 0, h = 0, channels = 0;
  uint8_t* data = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 3);
  LINTRA_CHECK(data != nullptr, "photos32: stb_image cannot decode '{}': {}", path.string(), stbi_failure_reason());
  RgbImage image;
  image.width = w;
  image.height = h;
  image.pixels.assign(data, data + size_t(w) * size_t(h) * 3);
  stbi_image_free(data);
  return image;
}

}  // namespace

std::vector<PhotoPyramid> load_photos32(const fs::path& unpacked_root, const LogFn& log) {
  const std::vector<Photos32Source>& sources = photos32_sources();
  const int64_t n = int64_t(sources.size());
  std::vector<std::vector<uint8_t>> files(sources.size());
  for (int64_t i = 0; i < n; ++i) {
    const Photos32Source& s = sources[size_t(i)];
    files[size_t(i)] = read_verified_photo(unpacked_root / s.package / s.path, s.sha256);
  }
  if (log) log(fmt::format("photos32: {} photos match their sha256", n));
  std::vector<std::optional<PhotoPyramid>> pyramids(sources.size());
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    try {
      const Photos32Source& s = sources[size_t(i)];
      pyramids[size_t(i)].emplace(decode_photo(files[size_t(i)], unpacked_root / s.package / s.path));
      std::vector<uint8_t>().swap(files[size_t(i)]);
    } catch (...) {
#pragma omp critical(photos32_decode_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  std::vector<PhotoPyramid> out;
  for (auto& p : pyramids) out.push_back(std::move(*p));
  return out;
}

std::vector<PhotoPyramid> load_photos32_from_debs(const fs::path& debs_dir, const fs::path& temp_parent,
                                                  const LogFn& log) {
  fs::create_directories(temp_parent);
  TempDir unpacked("unpack", temp_parent);
  const auto start = Clock::now();
  unpack_debs(debs_dir, unpacked.path());
  if (log) log(fmt::format("photos32: dpkg-deb -x of 4 packages in {:.1f} s", seconds_since(start)));
  return load_photos32(unpacked.path(), log);
}

// ---------------------------------------------------------------------------------------------
// CIFAR-10 batches

std::vector<Photos32Batch> photos32_batches(int64_t train_count, int64_t test_count) {
  std::vector<Photos32Batch> batches;
  const std::vector<std::string> train_files = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                                "data_batch_4.bin", "data_batch_5.bin"};
  const int64_t parts = int64_t(train_files.size());
  for (int64_t b = 0; b < parts; ++b) {
    const int64_t first = b * train_count / parts, end = (b + 1) * train_count / parts;
    batches.push_back({train_files[size_t(b)], first, end - first});
  }
  batches.push_back({"test_batch.bin", 0, test_count});
  return batches;
}

void write_photos32_batches(const fs::path& dir, const std::vector<uint8_t>& train_records,
                            const std::vector<uint8_t>& test_records) {
  LINTRA_CHECK(train_records.size() % size_t(kPhotos32RecordBytes) == 0 &&
                   test_records.size() % size_t(kPhotos32RecordBytes) == 0,
               "write_photos32_batches: {} train and {} test bytes are not whole {}-byte records",
               train_records.size(), test_records.size(), kPhotos32RecordBytes);
  const int64_t n_train = int64_t(train_records.size()) / kPhotos32RecordBytes;
  const int64_t n_test = int64_t(test_records.size()) / kPhotos32RecordBytes;
  std::vector<std::pair<fs::path, fs::path>> renames;
  for (const Photos32Batch& b : photos32_batches(n_train, n_test)) {
    const std::vector<uint8_t>& records = (b.file == "test_batch.bin") ? test_records : train_records;
    const auto begin = records.begin() + b.first * kPhotos32RecordBytes;
    const fs::path partial = dir / (b.file + ".partial");
    write_file(partial, std::vector<uint8_t>(begin, begin + b.count * kPhotos32RecordBytes));
    renames.emplace_back(partial, dir / b.file);
  }
  for (const auto& [from, to] : renames) fs::rename(from, to);
}

// ---------------------------------------------------------------------------------------------
// the stamp: recipe version, options, each batch's size and XXH3-64

namespace {

constexpr const char* kStampName = "photos32.stamp";
constexpr const char* kStampHeader = "lintra photos32 recipe 1";

std::string options_lines(const Photos32Options& opt) {
  return fmt::format("{}\nseed {}\ntrain_count {}\ntest_count {}\n", kStampHeader, opt.seed, opt.train_count,
                     opt.test_count);
}

std::string file_digest(const fs::path& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return digest_hex(xxh3_64(bytes.data(), bytes.size()));
}

void write_stamp(const fs::path& dir, const Photos32Options& opt) {
  std::string text = options_lines(opt);
  for (const Photos32Batch& b : photos32_batches(opt.train_count, opt.test_count)) {
    text += fmt::format("{} {} {}\n", b.file, b.count * kPhotos32RecordBytes, file_digest(dir / b.file));
  }
  const fs::path partial = dir / (std::string(kStampName) + ".partial");
  write_file(partial, std::vector<uint8_t>(text.begin(), text.end()));
  fs::rename(partial, dir / kStampName);
}

// True when the stamp matches `opt` and every batch has its stamped size and digest; false (with
// the reason in `why`) when the batches must be built; throws when a batch's digest is wrong.
bool stamp_matches(const fs::path& dir, const Photos32Options& opt, std::string& why) {
  std::ifstream in(dir / kStampName);
  if (!in) {
    why = "no stamp";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string stamp = text.str(), head = options_lines(opt);
  if (stamp.compare(0, head.size(), head) != 0) {
    why = "the stamp records another recipe, seed or count";
    return false;
  }
  std::istringstream rest(stamp.substr(head.size()));
  for (const Photos32Batch& b : photos32_batches(opt.train_count, opt.test_count)) {
    std::string file, digest;
    int64_t bytes = -1;
    std::error_code ec;
    const auto size = fs::file_size(dir / b.file, ec);
    if (!(rest >> file >> bytes >> digest) || file != b.file || ec || int64_t(size) != bytes) {
      why = fmt::format("{} is missing or has another size than the stamp says", b.file);
      return false;
    }
    const std::string actual = file_digest(dir / b.file);
    LINTRA_CHECK(actual == digest,
                 "photos32: '{}' was modified: expected XXH3 {} (from {}), actual {}; delete {} and prepare again",
                 (dir / b.file).string(), digest, kStampName, actual, dir.string());
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// prepare

fs::path prepare_photos32(const fs::path& cache_dir, const Photos32Options& opt, const LogFn& log) {
  auto say = [&](const std::string& msg) {
    if (log) log(msg);
  };
  LINTRA_CHECK(opt.train_count >= 1 && opt.test_count >= 1,
               "photos32: train and test counts must be >= 1, got {} and {}", opt.train_count, opt.test_count);
  const fs::path dir = cache_dir / "photos32";
  const auto start = Clock::now();
  std::string why;
  if (stamp_matches(dir, opt, why)) {
    say(fmt::format("photos32: {} train + {} test records (seed {}) present and verified in {} ({:.1f} s)",
                    opt.train_count, opt.test_count, opt.seed, dir.string(), seconds_since(start)));
    return dir;
  }
  say(fmt::format("photos32: building ({})", why));
  fs::create_directories(dir);
  fs::remove(dir / kStampName);  // the batches are about to change: no stamp until they are all in place
  download_missing_debs(dir, dir / "debs", say);
  const std::vector<PhotoPyramid> photos = load_photos32_from_debs(dir / "debs", dir, say);
  say(fmt::format("photos32: {} photos decoded ({:.1f} s so far)", photos.size(), seconds_since(start)));
  const PatchSet train = draw_patches(photos, opt.seed, Photos32Split::train, opt.train_count);
  const PatchSet test = draw_patches(photos, opt.seed, Photos32Split::test, opt.test_count);
  int64_t draws = 0;
  for (const PatchSet* s : {&train, &test})
    for (const PatchCrop& c : s->crops) draws += c.draws;
  say(fmt::format("photos32: {} patches drawn, {:.1f}% of crops rejected as flat ({:.1f} s so far)",
                  opt.train_count + opt.test_count,
                  100.0 * double(draws - opt.train_count - opt.test_count) / double(draws), seconds_since(start)));
  write_photos32_batches(dir, train.records, test.records);
  write_stamp(dir, opt);
  say(fmt::format("photos32: ready in {} ({} train + {} test records, seed {}, {:.1f} s)", dir.string(),
                  opt.train_count, opt.test_count, opt.seed, seconds_since(start)));
  return dir;
}

}  // namespace lintra::data
