#include "core/device.h"

#ifdef LINTRA_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace lintra {

bool cuda_available() {
#ifdef LINTRA_WITH_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  return false;
#endif
}

}  // namespace lintra
