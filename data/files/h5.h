// h5.h — a small RAII wrapper of the HDF5 C API (1.10), used by checkpoints (train/) and the speech corpus files (data/).
//
// Every HDF5 call's return code is checked; a failure throws lintra::Error whose message starts with
// "<file>: <object path>: <what failed>" and ends with HDF5's own innermost message, e.g.
//   "runs/x/step_5.h5.tmp: dataset /model/w: H5Dwrite failed (HDF5: file write failed)".
// HDF5's automatic printing of its error stack is turned off (silence_hdf5_errors()): messages go
// into our errors instead.
//
// What it is not: a general HDF5 binding. It knows the few shapes of data a checkpoint holds:
// n-d numeric datasets of lintra's dtypes (stored little-endian, contiguous, uncompressed), scalar
// string datasets, and scalar attributes (int64, uint64, double, string).
//
// Not for concurrent use from several threads on the same file.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace lintra::h5 {

// Turns off HDF5's printing of error stacks for the calling thread (HDF5's default stack is per
// thread in a thread-safe build). Cheap; every entry point of the checkpoint code calls it.
void silence_hdf5_errors();

// The calling thread's HDF5 error stack as one short phrase (its innermost message, which is the
// most specific: "file signature not found", "truncated file: eof = …"), then clears the stack.
// Empty when the stack is empty.
std::string take_error_stack();

// A move-only owner of one HDF5 identifier; closes it (ignoring failure) when destroyed. Use
// close() where a failure to close matters.
class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close_fn)(hid_t)) : id_(id), close_(close_fn) {}
  Id(Id&& other) noexcept { *this = std::move(other); }
  Id& operator=(Id&& other) noexcept;
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  ~Id() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  herr_t close();  // the close function's status; the Id is released either way
  void reset() { (void)close(); }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// --- objects, attributes ---------------------------------------------------------------------------

// A named object (file root, group or dataset) with attributes. Remembers the file name and its own
// path for messages.
class Object {
 public:
  hid_t id() const { return id_.get(); }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // Throws lintra::Error("<file>: <kind> <path>: <what> (HDF5: <stack>)").
  [[noreturn]] void fail(const std::string& what) const;

  bool has_attr(const std::string& name) const;
  std::vector<std::string> attr_names() const;  // in name order
  // Writes a scalar attribute, replacing one of the same name.
  void set_attr(const std::string& name, int64_t value) const;
  void set_attr(const std::string& name, uint64_t value) const;
  void set_attr(const std::string& name, double value) const;
  void set_attr(const std::string& name, std::string_view value) const;  // fixed-length UTF-8, no NUL byte
  void set_attr(const std::string& name, const char* value) const { set_attr(name, std::string_view(value)); }
  void delete_attr(const std::string& name) const;
  // Reads a scalar attribute, converting between integer/float widths. Throws naming the attribute
  // when it is missing or of another class (e.g. a string where a number is expected).
  int64_t attr_i64(const std::string& name) const;
  uint64_t attr_u64(const std::string& name) const;
  double attr_f64(const std::string& name) const;
  std::string attr_str(const std::string& name) const;
  // The class of an attribute: 'i' integer, 'f' float, 's' string, '?' other.
  char attr_class(const std::string& name) const;

 protected:
  Object(Id id, std::string file, std::string path, const char* kind)
      : id_(std::move(id)), file_(std::move(file)), path_(std::move(path)), kind_(kind) {}
  std::string child_path(const std::string& name) const;

  Id id_;
  std::string file_;
  std::string path_;
  const char* kind_;  // "group", "dataset", "file"
};

// --- datasets --------------------------------------------------------------------------------------

class Dataset : public Object {
 public:
  Dataset(Id id, std::string file, std::string path) : Object(std::move(id), std::move(file), std::move(path), "dataset") {}

  bool is_string() const;
  DType dtype() const;    // throws naming the dataset for element types lintra has no dtype for
  Shape shape() const;    // {} for a scalar dataset
  // Reads the whole dataset, converted to `dtype`, into `out` (numel(shape()) elements).
  void read(DType dtype, void* out, int64_t numel) const;
  std::string read_string() const;  // a scalar string dataset (fixed or variable length)
  // Byte offset of the data in the file (contiguous layout), or -1 when it has none (no elements).
  int64_t file_offset() const;
  void close();  // checked close
};

// --- groups and files ------------------------------------------------------------------------------

enum class LinkKind { none, group, dataset, other };

class Group : public Object {
 public:
  Group(Id id, std::string file, std::string path, const char* kind = "group")
      : Object(std::move(id), std::move(file), std::move(path), kind) {}

  // Child groups track creation order, so children() lists them as they were written.
  Group create_group(const std::string& name) const;
  Group open_group(const std::string& name) const;  // throws "…: group /a/b: not found"
  LinkKind kind_of(const std::string& name) const;  // a direct child's kind; none when absent
  bool has(const std::string& name) const { return kind_of(name) != LinkKind::none; }
  std::vector<std::string> children() const;  // creation order when tracked, else name order
  void unlink(const std::string& name) const;

  // An n-d dataset of `dtype` (stored little-endian, contiguous) filled from `data` (numel(shape)
  // elements, native layout). A 0-d shape makes a scalar dataset.
  Dataset create_dataset(const std::string& name, DType dtype, const Shape& shape, const void* data) const;
  Dataset write_string(const std::string& name, std::string_view text) const;  // scalar string dataset, no NUL
  Dataset open_dataset(const std::string& name) const;
};

class File : public Group {
 public:
  // Creates (truncating) a file for writing; its groups track creation order and it uses the
  // HDF5 1.8+ object formats, whose metadata carries checksums.
  static File create(const std::string& path);
  // Opens an existing file; throws "<path>: not an HDF5 file" / "<path>: cannot open: …".
  static File open(const std::string& path, bool writable = false);

  int64_t size() const;  // the file's size in bytes (H5Fget_filesize)
  void flush() const;    // H5Fflush(global), checked
  void close();          // H5Fclose, checked; all objects of the file must be closed first

 private:
  File(Id id, std::string path) : Group(std::move(id), path, "/", "file") {}
};

}  // namespace lintra::h5
