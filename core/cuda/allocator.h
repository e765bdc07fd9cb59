// cuda/allocator.h — the caching allocator of each GPU (core/allocator.h): device memory from
// cudaMalloc in the size classes of CachingAllocator, freed blocks kept per stream and reused in stream
// order, so a steady training step allocates nothing from the driver. Builds with LINTRA_WITH_CUDA.
#pragma once

#include "core/allocator.h"

namespace lintra {

// The allocator of cuda:index; throws when that GPU is not visible.
Allocator& cuda_allocator(int index);

}  // namespace lintra
