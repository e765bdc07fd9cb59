#include "train/distributed/communicator.h"

#include <algorithm>

#include "core/error.h"

namespace lintra::dist {

Communicator& single_process() {
  static SingleProcess one;
  return one;
}

Chunk chunk_of(int64_t n, int k, int r) {
  LINTRA_CHECK(n >= 0 && k > 0 && r >= 0 && r < k, "chunk_of: {} elements, rank {} of {}", n, r, k);
  // The first n % k chunks hold one element more than the others.
  auto start = [&](int64_t i) { return i * (n / k) + std::min<int64_t>(i, n % k); };
  return {start(r), start(r + 1)};
}

}  // namespace lintra::dist
