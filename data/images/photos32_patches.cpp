// photos32_patches.cpp — pyramid, strips, integer area resize, flatness test and the per-patch draw.
#include "data/images/photos32_patches.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>

#include "core/error.h"
#include "core/rng.h"

namespace lintra::data {

// ---------------------------------------------------------------------------------------------
// pyramid

RgbImage halve(const RgbImage& image) {
  RgbImage out;
  out.width = image.width / 2;
  out.height = image.height / 2;
  out.pixels.resize(size_t(out.width * out.height * 3));
  for (int64_t y = 0; y < out.height; ++y) {
    const uint8_t* r0 = image.at(0, 2 * y);
    const uint8_t* r1 = image.at(0, 2 * y + 1);
    uint8_t* o = out.at(0, y);
    for (int64_t x = 0; x < out.width; ++x) {
      for (int64_t c = 0; c < 3; ++c) {
        const int64_t a = 6 * x + c;
        o[3 * x + c] = uint8_t((r0[a] + r0[a + 3] + r1[a] + r1[a + 3] + 2) >> 2);
      }
    }
  }
  return out;
}

PhotoPyramid::PhotoPyramid(RgbImage photo) {
  LINTRA_CHECK(photo.width >= kPhotos32Side && photo.height >= kPhotos32Side &&
                   int64_t(photo.pixels.size()) == photo.width * photo.height * 3,
               "PhotoPyramid: need an RGB image of at least {0}×{0} pixels with width·height·3 bytes, got {1}×{2} "
               "with {3} bytes",
               kPhotos32Side, photo.width, photo.height, photo.pixels.size());
  levels_.push_back(std::move(photo));
  while (std::min(levels_.back().width, levels_.back().height) / 2 >= kPhotos32Side) {
    levels_.push_back(halve(levels_.back()));
  }
}

const char* photos32_split_name(Photos32Split split) { return split == Photos32Split::train ? "train" : "test"; }

// ---------------------------------------------------------------------------------------------
// strips

ColumnRange photos32_strip(int64_t width, Photos32Split split) {
  const int64_t boundary = width * 4 / 5;  // ⌊0.8·W⌋
  if (split == Photos32Split::train) return {0, boundary};
  return {boundary, width};
}

int64_t photos32_max_crop_side(int64_t width, int64_t height) {
  const ColumnRange train = photos32_strip(width, Photos32Split::train);
  const ColumnRange test = photos32_strip(width, Photos32Split::test);
  return std::min({height, train.end - train.begin, test.end - test.begin});
}

namespace {

// The strip at pyramid level k: the level pixels whose 2^k full-resolution columns all lie in it.
ColumnRange level_strip(int64_t width, Photos32Split split, int k) {
  const ColumnRange full = photos32_strip(width, split);
  const int64_t scale = int64_t(1) << k;
  return {(full.begin + scale - 1) / scale, full.end / scale};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// area resize and flatness

namespace {

// One output sample's taps: input indices [first, first + weights.size()) with integer weights (in
// 1/32 input pixel) summing to `side`.
struct Taps {
  int64_t first = 0;
  std::vector<int64_t> weights;
};

// Output j of 32 covers input [j·side/32, (j+1)·side/32); in units of 1/32 pixel that is
// [j·side, (j+1)·side), and input pixel i covers [32 i, 32 i + 32).
std::vector<Taps> area_taps(int64_t side) {
  std::vector<Taps> taps(static_cast<size_t>(kPhotos32Side));
  for (int64_t j = 0; j < kPhotos32Side; ++j) {
    const int64_t lo = j * side, hi = (j + 1) * side;
    Taps& t = taps[size_t(j)];
    t.first = lo / kPhotos32Side;
    for (int64_t i = t.first; i * kPhotos32Side < hi; ++i) {
      t.weights.push_back(std::min(hi, (i + 1) * kPhotos32Side) - std::max(lo, i * kPhotos32Side));
    }
  }
  return taps;
}

}  // namespace

void area_resize_to_patch(const uint8_t* src, int64_t stride, int64_t side, uint8_t* planar) {
  LINTRA_CHECK(side >= kPhotos32Side && side <= 4096, "area_resize_to_patch: side {} is not in [{}, 4096]", side,
               kPhotos32Side);
  const std::vector<Taps> taps = area_taps(side);
  // Horizontal pass: side rows × 32 columns × 3 channels, each a sum of weight · byte (≤ side · 255).
  std::vector<int64_t> rows(size_t(side * kPhotos32Side * 3));
  for (int64_t y = 0; y < side; ++y) {
    const uint8_t* row = src + y * stride;
    int64_t* out = rows.data() + y * kPhotos32Side * 3;
    for (int64_t j = 0; j < kPhotos32Side; ++j) {
      const Taps& t = taps[size_t(j)];
      int64_t acc[3] = {0, 0, 0};
      for (size_t k = 0; k < t.weights.size(); ++k) {
        const uint8_t* p = row + (t.first + int64_t(k)) * 3;
        for (int c = 0; c < 3; ++c) acc[c] += t.weights[k] * p[c];
      }
      for (int c = 0; c < 3; ++c) out[j * 3 + c] = acc[c];
    }
  }
  // Vertical pass, then divide by side² (the total weight) with rounding to nearest.
  const int64_t total = side * side;
  for (int64_t i = 0; i < kPhotos32Side; ++i) {
    const Taps& t = taps[size_t(i)];
    for (int64_t j = 0; j < kPhotos32Side; ++j) {
      int64_t acc[3] = {0, 0, 0};
      for (size_t k = 0; k < t.weights.size(); ++k) {
        const int64_t* h = rows.data() + ((t.first + int64_t(k)) * kPhotos32Side + j) * 3;
        for (int c = 0; c < 3; ++c) acc[c] += t.weights[k] * h[c];
      }
      for (int c = 0; c < 3; ++c) planar[c * kPhotos32Pixels + i * kPhotos32Side + j] = uint8_t((acc[c] + total / 2) / total);
    }
  }
}

namespace {

// Σ Y and Σ Y² over the patch, with Y = 299 R + 587 G + 114 B (1000 × the luminance).
void luma_sums(const uint8_t* planar, int64_t& sum, int64_t& sum_sq) {
  sum = sum_sq = 0;
  for (int64_t p = 0; p < kPhotos32Pixels; ++p) {
    const int64_t y = 299 * planar[p] + 587 * planar[kPhotos32Pixels + p] + 114 * planar[2 * kPhotos32Pixels + p];
    sum += y;
    sum_sq += y * y;
  }
}

}  // namespace

double patch_luma_std(const uint8_t* planar) {
  int64_t sum = 0, sum_sq = 0;
  luma_sums(planar, sum, sum_sq);
  const double n = double(kPhotos32Pixels);
  const double var = (n * double(sum_sq) - double(sum) * double(sum)) / (n * n);  // in (1000 · Y)²
  return std::sqrt(std::max(var, 0.0)) / 1000.0;
}

bool is_flat_patch(const uint8_t* planar) {
  int64_t sum = 0, sum_sq = 0;
  luma_sums(planar, sum, sum_sq);
  // std < 16  ⇔  n·ΣY² − (ΣY)² < (16 · 1000)² · n²   (all terms below 2^63).
  const int64_t n = kPhotos32Pixels;
  const int64_t limit = int64_t(kPhotos32LumaStdMin) * 1000;
  return n * sum_sq - sum * sum < limit * limit * n * n;
}

// ---------------------------------------------------------------------------------------------
// drawing patches

namespace {

uint64_t patch_stream(Photos32Split split, int64_t index) { return (uint64_t(split) << 48) | uint64_t(index); }

// Draws a scale and a position (steps 2–3 of the header); nullopt in the rare case where rounding
// leaves the level's strip narrower than 32 level pixels (the caller draws again).
std::optional<PatchCrop> draw_crop(const PhotoPyramid& photo, Photos32Split split, Generator& g) {
  const double u_lo = 0.5;
  const double u_hi = std::log2(double(photos32_max_crop_side(photo.width(), photo.height())) / double(kPhotos32Side));
  const double u = u_lo + (u_hi - u_lo) * g.next_double();
  const int k = std::min(int(std::floor(u)), photo.num_levels() - 1);
  const RgbImage& level = photo.level(k);
  const ColumnRange strip = level_strip(photo.width(), split, k);
  int64_t side = std::llround(double(kPhotos32Side) * std::exp2(u - k));
  side = std::min({side, strip.end - strip.begin, level.height});
  if (side < kPhotos32Side) return std::nullopt;
  const int64_t x = g.randint(strip.begin, strip.end - side + 1);
  const int64_t y = g.randint(0, level.height - side + 1);
  PatchCrop crop;
  crop.level = k;
  crop.x = x << k;
  crop.y = y << k;
  crop.side = side << k;
  return crop;
}

void check_photo_sizes(const std::vector<PhotoPyramid>& photos) {
  LINTRA_CHECK(!photos.empty(), "photos32: no photos to draw patches from");
  const int64_t min_side = int64_t(std::ceil(kPhotos32Side * std::sqrt(2.0)));  // u ≥ 0.5 needs 32·√2
  for (size_t p = 0; p < photos.size(); ++p) {
    const int64_t m = photos32_max_crop_side(photos[p].width(), photos[p].height());
    LINTRA_CHECK(m >= min_side,
                 "photos32: photo {} ({}×{}) is too small: its largest crop inside a strip is {} pixels, the "
                 "smallest scale needs {}",
                 p, photos[p].width(), photos[p].height(), m, min_side);
  }
}

}  // namespace

PatchCrop draw_patch(const std::vector<PhotoPyramid>& photos, uint64_t seed, Photos32Split split, int64_t index,
                     uint8_t* record) {
  Generator g(seed, patch_stream(split, index));
  const int32_t p = int32_t(g.randint(0, int64_t(photos.size())));
  const PhotoPyramid& photo = photos[size_t(p)];
  record[0] = uint8_t(p % 10);
  for (int draw = 1; draw <= kPhotos32MaxDraws; ++draw) {
    std::optional<PatchCrop> crop = draw_crop(photo, split, g);
    if (!crop) continue;
    const RgbImage& level = photo.level(crop->level);
    const int k = crop->level;
    area_resize_to_patch(level.at(crop->x >> k, crop->y >> k), level.width * 3, crop->side >> k, record + 1);
    if (is_flat_patch(record + 1)) continue;
    crop->photo = p;
    crop->draws = draw;
    return *crop;
  }
  LINTRA_FAIL("photos32: {} patch {}: {} crops of photo {} ({}×{}) were all flat (luminance std < {}); is the "
              "photo a flat colour?",
              photos32_split_name(split), index, kPhotos32MaxDraws, p, photo.width(), photo.height(), kPhotos32LumaStdMin);
}

PatchSet draw_patches(const std::vector<PhotoPyramid>& photos, uint64_t seed, Photos32Split split, int64_t count) {
  LINTRA_CHECK(count >= 0, "photos32: patch count must be >= 0, got {}", count);
  check_photo_sizes(photos);
  PatchSet set;
  set.records.resize(size_t(count * kPhotos32RecordBytes));
  set.crops.resize(size_t(count));
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < count; ++i) {
    try {
      set.crops[size_t(i)] = draw_patch(photos, seed, split, i, set.records.data() + i * kPhotos32RecordBytes);
    } catch (...) {
#pragma omp critical(photos32_draw_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return set;
}

}  // namespace lintra::data
