#include "core/storage.h"

#include "core/allocator.h"
#include "core/error.h"

namespace lintra {

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  LINTRA_CHECK(device == Device::cpu, "Storage: {} tensors need a build with LINTRA_CUDA=ON and a GPU", device);
  data_ = CpuAllocator::instance().allocate(nbytes);
}

Storage::~Storage() { CpuAllocator::instance().deallocate(data_, nbytes_); }

}  // namespace lintra
