// threading.h — one thread-count setting for the whole process (DESIGN.md §2.1).
// OpenBLAS (OpenMP build) and lintra's loops share libgomp's pool; set_num_threads sets both.
#pragma once

namespace lintra {

void set_num_threads(int n);  // n ≤ 0: leave as is
int num_threads();

}  // namespace lintra
