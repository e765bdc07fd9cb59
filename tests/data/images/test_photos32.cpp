// test_photos32.cpp — photos32's patch sampler on synthetic in-memory photos (exact area resize,
// flat rejection, strips, determinism), batch writing through Cifar10Dataset, the photo digest
// check, and — when the four .debs are cached — the full prepare (determinism, disjoint strips,
// idempotence).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "core/rng.h"
#include "data/cache.h"
#include "data/images/cifar.h"
#include "data/files/file_io.h"
#include "data/images/photos32.h"
#include "data/files/sha256.h"
#include "data/files/shell.h"
#include "tests/data/test_util.h"

namespace lintra::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

// A width × height photo: the train strip's green is 0 and the test strip's 255, so a patch's green
// plane shows which strip it came from; red = blue = noise constant over 8×8 blocks (so that it
// survives the area filter: a patch's luminance std is about 0.413 · 74 ≈ 30, never flat).
RgbImage two_strip_photo(int64_t width, int64_t height, uint64_t seed) {
  RgbImage im{width, height, std::vector<uint8_t>(size_t(width * height * 3))};
  const Generator g(seed);
  const int64_t boundary = photos32_strip(width, Photos32Split::test).begin;
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      uint8_t* p = im.at(x, y);
      const uint8_t noise = uint8_t(g.block(uint64_t((y / 8) * width + x / 8))[0]);
      p[0] = p[2] = noise;
      p[1] = x < boundary ? 0 : 255;
    }
  }
  return im;
}

std::vector<PhotoPyramid> synthetic_photos(int n) {
  std::vector<PhotoPyramid> photos;
  for (int i = 0; i < n; ++i) photos.emplace_back(two_strip_photo(300 + 37 * i, 200 + 11 * i, uint64_t(i)));
  return photos;
}

TEST(DataPhotos32, StripsSplitAtEightyPercent) {
  EXPECT_EQ(photos32_strip(2560, Photos32Split::train).end, 2048);
  EXPECT_EQ(photos32_strip(2560, Photos32Split::test).begin, 2048);
  EXPECT_EQ(photos32_strip(2560, Photos32Split::test).end, 2560);
  EXPECT_EQ(photos32_strip(451, Photos32Split::train).end, 360);  // ⌊0.8 · 451⌋
  EXPECT_EQ(photos32_max_crop_side(2560, 1600), 512);
  EXPECT_EQ(photos32_max_crop_side(451, 300), 91);
}

TEST(DataPhotos32, HalveAveragesTwoByTwoBlocksAndDropsOddEdges) {
  RgbImage im{3, 3, std::vector<uint8_t>(27)};
  for (int i = 0; i < 27; ++i) im.pixels[size_t(i)] = uint8_t(10 * i);
  RgbImage h = halve(im);
  ASSERT_EQ(h.width, 1);
  ASSERT_EQ(h.height, 1);
  // Pixels (0,0), (1,0), (0,1), (1,1) start at bytes 0, 3, 9, 12 (red; blue is 2 bytes further on).
  EXPECT_EQ(h.pixels[0], (0 + 30 + 90 + 120 + 2) / 4);
  EXPECT_EQ(h.pixels[2], (20 + 50 + 110 + 140 + 2) / 4);
}

TEST(DataPhotos32, PyramidLevelsStopAt32Pixels) {
  PhotoPyramid p(two_strip_photo(300, 130, 1));
  ASSERT_EQ(p.num_levels(), 3);  // 300×130, 150×65, 75×32
  EXPECT_EQ(p.level(2).width, 75);
  EXPECT_EQ(p.level(2).height, 32);
}

TEST(DataPhotos32, AreaResizeIsExact) {
  // side 32: the identity (planar out of interleaved in).
  RgbImage im = two_strip_photo(64, 64, 3);
  std::vector<uint8_t> out(3 * 1024);
  area_resize_to_patch(im.at(0, 0), im.width * 3, 32, out.data());
  std::vector<uint8_t> back(3072);
  cifar_planar_to_interleaved(out.data(), back.data());
  for (int64_t y = 0; y < 32; ++y)
    for (int64_t x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(back[size_t((y * 32 + x) * 3 + c)], im.at(x, y)[c]);
  // side 64: 2×2 block means, rounded to nearest (as halve does).
  area_resize_to_patch(im.at(0, 0), im.width * 3, 64, out.data());
  RgbImage half = halve(im);
  for (int64_t p = 0; p < 1024; ++p) ASSERT_EQ(out[size_t(p)], half.pixels[size_t(p * 3)]) << "pixel " << p;
  // side 48 of a constant colour stays that colour.
  RgbImage flat{48, 48, std::vector<uint8_t>(48 * 48 * 3, 77)};
  area_resize_to_patch(flat.at(0, 0), flat.width * 3, 48, out.data());
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t v) { return v == 77; }));
  EXPECT_THAT(error_of([&] { area_resize_to_patch(flat.at(0, 0), 144, 31, out.data()); }), HasSubstr("side 31"));
}

TEST(DataPhotos32, FlatnessIsLuminanceStdBelow16) {
  std::vector<uint8_t> patch(3072, 128);
  EXPECT_TRUE(is_flat_patch(patch.data()));
  EXPECT_DOUBLE_EQ(patch_luma_std(patch.data()), 0.0);
  // Half the pixels at grey 128 - d, half at 128 + d: luminance std = d (0.299 + 0.587 + 0.114 = 1).
  for (int d : {15, 16, 17}) {
    for (int64_t p = 0; p < 1024; ++p)
      for (int c = 0; c < 3; ++c) patch[size_t(c * 1024 + p)] = uint8_t(p % 2 ? 128 + d : 128 - d);
    EXPECT_NEAR(patch_luma_std(patch.data()), d, 1e-9);
    EXPECT_EQ(is_flat_patch(patch.data()), d < 16) << "d = " << d;
  }
}

TEST(DataPhotos32, DrawnPatchesAreNotFlatAndFlatPhotosFail) {
  // A photo that is flat except for noise in its top-left 100×100 corner: many crops are rejected.
  RgbImage im{400, 300, std::vector<uint8_t>(400 * 300 * 3, 90)};
  Generator g(5);
  for (int64_t y = 0; y < 100; ++y)
    for (int64_t x = 0; x < 100; ++x)
      for (int c = 0; c < 3; ++c) im.at(x, y)[c] = uint8_t(g.next_u32());
  // The test strip (x ≥ 320) is all flat, so only train patches can be drawn from it.
  std::vector<PhotoPyramid> photos;
  photos.emplace_back(std::move(im));
  PatchSet set = draw_patches(photos, 1, Photos32Split::train, 200);
  int64_t rejected = 0;
  for (int64_t i = 0; i < 200; ++i) {
    EXPECT_GE(patch_luma_std(set.records.data() + i * kPhotos32RecordBytes + 1), 16.0);
    rejected += set.crops[size_t(i)].draws - 1;
  }
  EXPECT_GT(rejected, 0);
  EXPECT_THAT(error_of([&] { draw_patches(photos, 1, Photos32Split::test, 10); }),
              AllOf(HasSubstr("test patch"), HasSubstr("all flat"), HasSubstr("400×300")));
}

TEST(DataPhotos32, CropsStayInsideTheirStrips) {
  const std::vector<PhotoPyramid> photos = synthetic_photos(4);
  for (Photos32Split split : {Photos32Split::train, Photos32Split::test}) {
    const PatchSet set = draw_patches(photos, 9, split, 400);
    std::vector<int> per_photo(photos.size(), 0);
    for (int64_t i = 0; i < 400; ++i) {
      const PatchCrop& c = set.crops[size_t(i)];
      const PhotoPyramid& p = photos[size_t(c.photo)];
      const ColumnRange strip = photos32_strip(p.width(), split);
      ++per_photo[size_t(c.photo)];
      ASSERT_GE(c.x, strip.begin);
      ASSERT_LE(c.x + c.side, strip.end);
      ASSERT_LE(c.y + c.side, p.height());
      ASSERT_GE(c.side, 45);  // 32·2^0.5
      ASSERT_LE(c.side, photos32_max_crop_side(p.width(), p.height()));
      ASSERT_EQ(c.x % (int64_t(1) << c.level), 0);
      const uint8_t* rec = set.records.data() + i * kPhotos32RecordBytes;
      ASSERT_EQ(rec[0], c.photo % 10);
      const uint8_t green = split == Photos32Split::train ? 0 : 255;  // no pixel of the other strip
      ASSERT_TRUE(std::all_of(rec + 1 + 1024, rec + 1 + 2048, [&](uint8_t v) { return v == green; }))
          << photos32_split_name(split) << " patch " << i;
    }
    for (int n : per_photo) EXPECT_GT(n, 50);  // photos are drawn uniformly: 100 each on average
  }
}

TEST(DataPhotos32, SameSeedSameBytesAnyThreadCount) {
  const std::vector<PhotoPyramid> photos = synthetic_photos(3);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const PatchSet one = draw_patches(photos, 4, Photos32Split::train, 300);
  omp_set_num_threads(std::max(threads, 2));
  const PatchSet again = draw_patches(photos, 4, Photos32Split::train, 300);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.records, again.records);
  EXPECT_NE(one.records, draw_patches(photos, 5, Photos32Split::train, 300).records);
  // The train and test streams of one seed differ too.
  EXPECT_NE(one.records, draw_patches(photos, 4, Photos32Split::test, 300).records);
}

TEST(DataPhotos32, BatchesRoundTripThroughCifar10Dataset) {
  const std::vector<PhotoPyramid> photos = synthetic_photos(2);
  const PatchSet train = draw_patches(photos, 2, Photos32Split::train, 12);
  const PatchSet test = draw_patches(photos, 2, Photos32Split::test, 3);
  TempDir tmp("lintra-test-photos32");
  write_photos32_batches(tmp.path(), train.records, test.records);
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    EXPECT_EQ(e.path().extension(), ".bin") << e.path();  // no .partial left behind
  }
  EXPECT_EQ(fs::file_size(tmp.path() / "data_batch_1.bin"), 2u * 3073u);  // 12 records as 2, 2, 3, 2, 3
  EXPECT_EQ(fs::file_size(tmp.path() / "data_batch_5.bin"), 3u * 3073u);
  for (const auto& [split, set] : {std::pair{"train", &train}, std::pair{"test", &test}}) {
    Cifar10Dataset ds(tmp.path(), split);
    ASSERT_EQ(ds.size(), int64_t(set->crops.size()));
    for (int64_t i = 0; i < ds.size(); ++i) {
      const uint8_t* rec = set->records.data() + i * kPhotos32RecordBytes;
      std::vector<uint8_t> expected(3072);
      cifar_planar_to_interleaved(rec + 1, expected.data());
      Sample s = ds.get(i);
      EXPECT_EQ(s.label, rec[0]);
      EXPECT_EQ(s.bytes, expected);
    }
  }
}

TEST(DataPhotos32, SourcesAreTheThirtyThreePinnedPhotos) {
  ASSERT_EQ(photos32_sources().size(), 33u);
  for (const Photos32Source& s : photos32_sources()) {
    EXPECT_EQ(s.sha256.size(), 64u) << s.path;
    EXPECT_TRUE(std::any_of(photos32_packages().begin(), photos32_packages().end(),
                            [&](const DebPackage& p) { return p.name == s.package; }))
        << s.package;
  }
  EXPECT_EQ(photos32_deb_path("d", photos32_packages()[3]).string(),
            "d/plasma-workspace-wallpapers_4%3a5.27.5-2_all.deb");
}

TEST(DataPhotos32, BadOrMissingPhotoIsAnErrorNamingFileAndDigests) {
  TempDir tmp("lintra-test-photos32");
  const Photos32Source& first = photos32_sources()[0];
  const fs::path path = tmp.path() / first.package / first.path;
  EXPECT_THAT(error_of([&] { load_photos32(tmp.path()); }),
              AllOf(HasSubstr("missing photo"), HasSubstr(path.string()), HasSubstr(first.sha256)));
  write_file(path, std::vector<uint8_t>{'n', 'o', 't', ' ', 'a', ' ', 'p', 'n', 'g'});
  EXPECT_THAT(error_of([&] { load_photos32(tmp.path()); }),
              AllOf(HasSubstr(path.string()), HasSubstr("expected sha256 " + first.sha256),
                    HasSubstr("actual " + sha256_hex(std::string("not a png")))));
}

// --- the real photos (only when the .debs are cached: 163 MB, `lintra data prepare photos32`)

std::vector<uint8_t> file_bytes(const fs::path& dir, const std::vector<std::string>& files) {
  std::vector<uint8_t> all;
  for (const std::string& f : files) {
    std::vector<uint8_t> b = read_file(dir / f);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

TEST(DataPhotos32, FullPrepareIsDeterministicDisjointAndIdempotent) {
  const fs::path root = data_root();
  if (!photos32_debs_present(root)) {
    GTEST_SKIP() << "photos32's .debs are not cached in " << (root / "photos32" / "debs")
                 << "; run `lintra data prepare photos32` once (downloads 163 MB)";
  }
  const Photos32Options opt{7, 1000, 250};
  TempDir a("lintra-test-photos32-a"), b("lintra-test-photos32-b");
  for (const TempDir* t : {&a, &b}) {
    fs::create_directories(t->path() / "photos32");
    fs::create_directory_symlink(root / "photos32" / "debs", t->path() / "photos32" / "debs");
    prepare_photos32(t->path(), opt);
  }
  const std::vector<std::string> train_files = Cifar10Dataset::split_files("train");
  const std::vector<std::string> test_files = Cifar10Dataset::split_files("test");
  const std::vector<uint8_t> train_bytes = file_bytes(a.path() / "photos32", train_files);
  const std::vector<uint8_t> test_bytes = file_bytes(a.path() / "photos32", test_files);
  EXPECT_EQ(train_bytes, file_bytes(b.path() / "photos32", train_files));
  EXPECT_EQ(test_bytes, file_bytes(b.path() / "photos32", test_files));
  EXPECT_EQ(Cifar10Dataset(a.path() / "photos32", "train").size(), 1000);
  EXPECT_EQ(Cifar10Dataset(a.path() / "photos32", "test").size(), 250);

  // A second prepare only verifies; a modified batch is an error naming it.
  std::vector<std::string> log;
  prepare_photos32(a.path(), opt, [&](const std::string& m) { log.push_back(m); });
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("present and verified"));
  std::vector<uint8_t> corrupt = read_file(a.path() / "photos32" / "test_batch.bin");
  corrupt[100] ^= 1;
  write_file(a.path() / "photos32" / "test_batch.bin", corrupt);
  EXPECT_THAT(error_of([&] { prepare_photos32(a.path(), opt); }),
              AllOf(HasSubstr("test_batch.bin"), HasSubstr("was modified"), HasSubstr("expected XXH3")));

  // The same patches drawn here, with their crops: every train crop lies left of every test column.
  const std::vector<PhotoPyramid> photos = load_photos32_from_debs(root / "photos32" / "debs", b.path());
  ASSERT_EQ(photos.size(), 33u);
  for (Photos32Split split : {Photos32Split::train, Photos32Split::test}) {
    const bool train = split == Photos32Split::train;
    const PatchSet set = draw_patches(photos, opt.seed, split, train ? opt.train_count : opt.test_count);
    EXPECT_EQ(set.records, train ? train_bytes : test_bytes);
    for (const PatchCrop& c : set.crops) {
      const int64_t boundary = photos32_strip(photos[size_t(c.photo)].width(), Photos32Split::test).begin;
      if (train) ASSERT_LE(c.x + c.side, boundary);
      else ASSERT_GE(c.x, boundary);
    }
  }
}

}  // namespace
}  // namespace lintra::data
