// bytes.h — values as bytes to send between ranks (all ranks run the same build on the same kind of
// machine: plain little-endian copies, no versioning). A reader that runs out of bytes throws.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/error.h"

namespace lintra::dist {

class ByteWriter {
 public:
  template <typename T> ByteWriter& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
    return *this;
  }
  ByteWriter& put_string(const std::string& s) {
    put(int64_t(s.size()));
    bytes_ += s;
    return *this;
  }
  ByteWriter& put_raw(const void* data, size_t n) {
    put(int64_t(n));
    bytes_.append(static_cast<const char*>(data), n);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}
  template <typename T> T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  std::string get_string() {
    const size_t n = length();
    return std::string(take(n), n);
  }
  // The next length-prefixed block: its length must be `n`; copied to `out`.
  void get_raw(void* out, size_t n) {
    const size_t stored = length();
    LINTRA_CHECK(stored == n, "{}: a block of {} bytes where {} were expected", what_, stored, n);
    if (n > 0) std::memcpy(out, take(n), n);
  }
  bool done() const { return pos_ == bytes_.size(); }

 private:
  size_t length() {
    const int64_t n = get<int64_t>();
    LINTRA_CHECK(n >= 0 && size_t(n) <= bytes_.size() - pos_, "{}: a length of {} with {} bytes left", what_, n,
                 bytes_.size() - pos_);
    return size_t(n);
  }
  const char* take(size_t n) {
    LINTRA_CHECK(n <= bytes_.size() - pos_, "{}: {} bytes wanted, {} left", what_, n, bytes_.size() - pos_);
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  const std::string& bytes_;
  std::string what_;
  size_t pos_ = 0;
};

}  // namespace lintra::dist
