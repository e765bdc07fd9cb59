// cuda/runtime.h — the CUDA device plumbing lintra needs below the kernels: device count, the one
// stream per device, raw device memory and copies between host and device. Declared here without
// any CUDA type (streams are opaque pointers) so that host code compiled by g++ calls it; defined in
// cuda/runtime.cu, compiled by nvcc. Every CUDA error becomes a lintra::Error naming the call and
// CUDA's message (cuda/errors.cpp); this header includes nothing of fmt, which nvcc cannot compile.
//
// Only in builds with LINTRA_WITH_CUDA. Copies are synchronous with respect to the host: a copy to
// the host returns once the bytes are there, after all work queued on the device's stream.
#pragma once

#include <cstddef>

namespace lintra::cuda {

// GPUs visible to this process; 0 when there is none (or no driver), never an error.
int device_count();
// Throws unless `device` is a visible GPU ("cuda:1: only 1 CUDA device is visible").
void check_device(int device);

// Makes `device` the calling thread's current device (kernel launches and cuBLAS act on it).
void set_current(int device);

// The stream all of lintra's work on `device` is queued on (created on first use, non-blocking).
void* stream(int device);
// Waits until every piece of work queued on the device's stream has finished.
void synchronize(int device);

// Raw device memory (the caching allocator, cuda/allocator.cpp, is the only caller): nullptr when
// the device is out of memory, a lintra::Error for any other failure.
void* try_malloc(int device, size_t nbytes);
void free(int device, void* ptr);
// Bytes free and in total on the device (cudaMemGetInfo).
void memory_info(int device, size_t& free_bytes, size_t& total_bytes);

// Copies of nbytes, queued on the device's stream and waited for.
void copy_host_to_device(int device, void* dst, const void* src, size_t nbytes);
void copy_device_to_host(int device, void* dst, const void* src, size_t nbytes);
void copy_device_to_device(int dst_device, void* dst, int src_device, const void* src, size_t nbytes);

namespace detail {
// Throws lintra::Error("<call> failed on cuda:<device>: <message> (at <file>:<line>)").
[[noreturn]] void fail(const char* call, int device, const char* message, const char* file, int line);
}  // namespace detail

}  // namespace lintra::cuda
