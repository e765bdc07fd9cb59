// png.h — writing generated images as one PNG grid (the run's samples/, experiment READMEs). The
// one place lintra encodes images; a file utility of the data layer (nn/ knows nothing of files).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace lintra::data {

// images: int64 (n, height·width·channels) with values in [0, 255], each row an image in HWC raster
// order with the channel fastest (the data layer's order: MNIST rows, CIFAR r, g, b per pixel).
// Writes a rows × cols grid (row-major, n ≤ rows·cols; empty cells stay grey) with `padding`
// grey (128) pixels between and around the cells. channels: 1 (grey) or 3 (RGB).
// Throws lintra::Error for a bad shape, a value outside [0, 255] or a file that cannot be written.
void write_png_grid(const Tensor& images, int64_t rows, int64_t cols, int64_t height, int64_t width,
                    int64_t channels, const std::string& path, int64_t padding = 1);

}  // namespace lintra::data
