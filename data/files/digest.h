// digest.h — XXH3-64 content digests (the checksums lintra reports in run logs).
//
// A thin wrapper over xxHash's streaming XXH3-64 so that no header outside digest.cpp includes
// xxhash.h. Digests are printed as 16 lowercase hex digits (digest_hex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lintra::data {

class Xxh3 {
 public:
  Xxh3();  // seed 0
  ~Xxh3();
  Xxh3(const Xxh3&) = delete;
  Xxh3& operator=(const Xxh3&) = delete;

  void update(const void* data, size_t nbytes);
  template <typename T> void update_vector(const std::vector<T>& v) {
    update_value(uint64_t(v.size()));  // the length first, so that [a][bc] and [ab][c] differ
    if (!v.empty()) update(v.data(), v.size() * sizeof(T));
  }
  template <typename T> void update_value(const T& value) { update(&value, sizeof(T)); }
  uint64_t digest() const;  // of everything so far; update may continue afterwards

 private:
  struct State;
  std::unique_ptr<State> state_;
};

uint64_t xxh3_64(const void* data, size_t nbytes);
std::string digest_hex(uint64_t digest);  // "0123456789abcdef"

}  // namespace lintra::data
