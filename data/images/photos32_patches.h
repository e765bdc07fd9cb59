// photos32_patches.h — photos32's patch sampler (DATA.md "photos32"): 2× pyramid, multi-scale
// square crops, an exact integer area filter to 32×32, flat-patch rejection, train/test strips.
//
// What a patch is. Patch i of a split has its own Philox stream (seed, stream = split·2^48 + i), so
// patches are independent of each other and of the thread count: same seed → same bytes. From that
// stream it draws
//   1. a photo, uniformly among all photos (label = photo index mod 10);
//   2. a scale u uniform in [0.5, log2(m/32)], where m = min(height, train strip width, test strip
//      width) is the largest square that fits in either strip (one scale range per photo, so train
//      and test patches have the same scale distribution); the crop side is s = 32·2^u;
//   3. the pyramid level k = ⌊u⌋ (level k is the photo box-averaged over 2^k × 2^k blocks), where the
//      crop side is round(s/2^k) ∈ [32, 64] level pixels, and a position inside the split's strip at
//      that level, uniform over the integer positions;
// resizes that square to 32×32 with an area (box) filter, and redraws (2–3) while the patch is flat
// (luminance std < 16 on 0–255, Y = 0.299 R + 0.587 G + 0.114 B). Everything after the draws is
// integer arithmetic, so the bytes do not depend on the compiler's floating-point contraction.
//
// Strips: train crops lie in columns [0, ⌊0.8·W⌋) of the full-resolution photo, test crops in
// [⌊0.8·W⌋, W). A level-k pixel averages 2^k full-resolution columns, and a strip at level k keeps
// only the level pixels wholly inside it, so no test pixel ever reaches a training patch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lintra::data {

// An 8-bit RGB image, row-major with the channel fastest: pixel (x, y) starts at (y·width + x)·3.
struct RgbImage {
  int64_t width = 0;
  int64_t height = 0;
  std::vector<uint8_t> pixels;  // width · height · 3

  const uint8_t* at(int64_t x, int64_t y) const { return pixels.data() + (y * width + x) * 3; }
  uint8_t* at(int64_t x, int64_t y) { return pixels.data() + (y * width + x) * 3; }
};

// The image box-averaged over 2×2 blocks (rounded to nearest); an odd last row or column is dropped.
RgbImage halve(const RgbImage& image);

// A photo and its 2× pyramid: levels while both sides stay ≥ 32 (level 0 is the photo itself).
class PhotoPyramid {
 public:
  explicit PhotoPyramid(RgbImage photo);
  int num_levels() const { return int(levels_.size()); }
  const RgbImage& level(int k) const { return levels_[size_t(k)]; }
  int64_t width() const { return levels_[0].width; }
  int64_t height() const { return levels_[0].height; }

 private:
  std::vector<RgbImage> levels_;
};

enum class Photos32Split { train = 0, test = 1 };
const char* photos32_split_name(Photos32Split split);

inline constexpr int64_t kPhotos32Side = 32;
inline constexpr int64_t kPhotos32Pixels = kPhotos32Side * kPhotos32Side;  // 1024
inline constexpr int64_t kPhotos32RecordBytes = 1 + 3 * kPhotos32Pixels;  // CIFAR-10's 3073
inline constexpr int kPhotos32LumaStdMin = 16;  // flat: luminance std below this (0–255 scale)
inline constexpr int kPhotos32MaxDraws = 1000;  // crops drawn for one patch before the photo is called flat

// Columns [begin, end) of a width-`width` photo (full resolution) that `split` may crop from.
struct ColumnRange {
  int64_t begin = 0;
  int64_t end = 0;
};
ColumnRange photos32_strip(int64_t width, Photos32Split split);

// The largest crop side (full-resolution pixels) of a width × height photo: min(height, both strips).
int64_t photos32_max_crop_side(int64_t width, int64_t height);

// Where a patch came from: the full-resolution square [x, x + side) × [y, y + side) of `photo`,
// read at pyramid `level` (x, y and side are multiples of 2^level); `draws` counts the crops drawn,
// the flat ones included.
struct PatchCrop {
  int32_t photo = -1;
  int32_t level = 0;
  int64_t x = 0;
  int64_t y = 0;
  int64_t side = 0;
  int32_t draws = 0;
};

// Area-average resize of the side × side square at `src` (rows `stride` bytes apart, RGB) to 32×32,
// written as CIFAR planes (1024 R, 1024 G, 1024 B) to `planar`. Exact integer weights; side ≥ 32.
void area_resize_to_patch(const uint8_t* src, int64_t stride, int64_t side, uint8_t* planar);

// Luminance standard deviation of a planar 32×32 patch, on the 0–255 scale.
double patch_luma_std(const uint8_t* planar);
// patch_luma_std(planar) < kPhotos32LumaStdMin, decided in exact integer arithmetic.
bool is_flat_patch(const uint8_t* planar);

// Draws patch `index` of `split` (see the header comment) into the 3073-byte CIFAR record at `record`
// (label byte, then planes) and returns its crop. Throws when kPhotos32MaxDraws crops are all flat.
PatchCrop draw_patch(const std::vector<PhotoPyramid>& photos, uint64_t seed, Photos32Split split, int64_t index,
                     uint8_t* record);

struct PatchSet {
  std::vector<uint8_t> records;  // count × 3073 bytes, CIFAR-10 records in patch order
  std::vector<PatchCrop> crops;  // count
};

// Patches 0 … count-1 of `split`, drawn in parallel (OpenMP); the result does not depend on the
// thread count. Throws when a photo is too small (its largest crop below 32·√2 pixels).
PatchSet draw_patches(const std::vector<PhotoPyramid>& photos, uint64_t seed, Photos32Split split, int64_t count);

}  // namespace lintra::data
