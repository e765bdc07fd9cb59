// h5.cpp — the HDF5 wrapper: identifiers, attributes, datasets, groups, files (see h5.h).
#include "data/files/h5.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/error.h"

namespace lintra::h5 {

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

namespace {

herr_t collect_error(unsigned /*n*/, const H5E_error2_t* err, void* out) {
  auto* messages = static_cast<std::vector<std::string>*>(out);
  if (err->desc && *err->desc) messages->emplace_back(err->desc);
  return 0;
}

}  // namespace

std::string take_error_stack() {
  std::vector<std::string> messages;  // innermost (most specific) first
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &messages);
  H5Eclear2(H5E_DEFAULT);
  if (messages.empty()) return "";
  std::string msg = messages.front();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  // I/O failures read "file write failed: time = …, filename = …, errno = 28, error message = 'No
  // space left on device', buf = …": keep the phrase and the system's message.
  const std::string key = ", error message = '";
  size_t at = msg.find(key), time = msg.find(": time = ");
  if (at != std::string::npos && time != std::string::npos && time < at) {
    size_t end = msg.find('\'', at + key.size());
    msg = msg.substr(0, time) + ": " + msg.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
  }
  return msg;
}

Id& Id::operator=(Id&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, -1);
    close_ = std::exchange(other.close_, nullptr);
  }
  return *this;
}

herr_t Id::close() {
  herr_t status = 0;
  if (id_ >= 0 && close_) status = close_(id_);
  id_ = -1;
  close_ = nullptr;
  return status;
}

// --- types -----------------------------------------------------------------------------------------

namespace {

hid_t file_type(DType t) {
  switch (t) {
    case DType::f32: return H5T_IEEE_F32LE;
    case DType::f64: return H5T_IEEE_F64LE;
    case DType::i64: return H5T_STD_I64LE;
    case DType::u8: return H5T_STD_U8LE;
  }
  return H5T_STD_U8LE;
}

hid_t memory_type(DType t) {
  switch (t) {
    case DType::f32: return H5T_NATIVE_FLOAT;
    case DType::f64: return H5T_NATIVE_DOUBLE;
    case DType::i64: return H5T_NATIVE_INT64;
    case DType::u8: return H5T_NATIVE_UINT8;
  }
  return H5T_NATIVE_UINT8;
}

// A fixed-length UTF-8 string type of `size` bytes (at least 1), null-padded.
Id string_type(size_t size) {
  Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!t.valid() || H5Tset_size(t.get(), std::max<size_t>(size, 1)) < 0 ||
      H5Tset_strpad(t.get(), H5T_STR_NULLPAD) < 0 || H5Tset_cset(t.get(), H5T_CSET_UTF8) < 0) {
    LINTRA_FAIL("HDF5: cannot make a string type of {} bytes ({})", size, take_error_stack());
  }
  return t;
}

// Reads a string stored with file type `type` through `read(memtype, buffer)`.
template <typename ReadFn>
std::string read_string_value(const Object& obj, const std::string& what, hid_t type, ReadFn&& read) {
  if (H5Tget_class(type) != H5T_STRING) obj.fail(fmt::format("{}: expected a string", what));
  htri_t variable = H5Tis_variable_str(type);
  if (variable < 0) obj.fail(fmt::format("{}: cannot read its type", what));
  if (variable > 0) {
    Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
    if (!mem.valid() || H5Tset_size(mem.get(), H5T_VARIABLE) < 0) obj.fail("cannot make a string type");
    H5Tset_cset(mem.get(), H5Tget_cset(type));
    char* p = nullptr;
    if (read(mem.get(), &p) < 0) obj.fail(fmt::format("{}: read failed", what));
    std::string s = p ? std::string(p) : std::string();
    H5free_memory(p);
    return s;
  }
  size_t size = H5Tget_size(type);
  if (size == 0) obj.fail(fmt::format("{}: string of size 0", what));
  std::string buffer(size, '\0');
  if (read(type, buffer.data()) < 0) obj.fail(fmt::format("{}: read failed", what));
  buffer.resize(std::min(buffer.find('\0'), buffer.size()));
  return buffer;
}

}  // namespace

// --- objects and attributes ------------------------------------------------------------------------

void Object::fail(const std::string& what) const {
  std::string stack = take_error_stack();
  std::string where = path_ == "/" ? file_ : fmt::format("{}: {} {}", file_, kind_, path_);
  if (stack.empty()) throw Error(fmt::format("{}: {}", where, what));
  throw Error(fmt::format("{}: {} (HDF5: {})", where, what, stack));
}

std::string Object::child_path(const std::string& name) const {
  return path_ == "/" ? "/" + name : path_ + "/" + name;
}

bool Object::has_attr(const std::string& name) const {
  htri_t e = H5Aexists(id(), name.c_str());
  if (e < 0) fail(fmt::format("cannot look up attribute '{}'", name));
  return e > 0;
}

namespace {
herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}
herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> Object::attr_names() const {
  std::vector<std::string> names;
  hsize_t idx = 0;
  if (H5Aiterate2(id(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &names) < 0) fail("cannot list attributes");
  return names;
}

void Object::delete_attr(const std::string& name) const {
  if (H5Adelete(id(), name.c_str()) < 0) fail(fmt::format("cannot delete attribute '{}'", name));
}

namespace {

void write_attr(const Object& obj, const std::string& name, hid_t ftype, hid_t mtype, const void* value) {
  if (obj.has_attr(name)) obj.delete_attr(name);
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.valid()) obj.fail(fmt::format("attribute '{}': cannot make a dataspace", name));
  Id attr(H5Acreate2(obj.id(), name.c_str(), ftype, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) obj.fail(fmt::format("attribute '{}': cannot create", name));
  if (H5Awrite(attr.get(), mtype, value) < 0) obj.fail(fmt::format("attribute '{}': write failed", name));
  if (attr.close() < 0) obj.fail(fmt::format("attribute '{}': close failed", name));
}

// Opens attribute `name` of `obj` holding a single value; returns it and its type class.
Id open_scalar_attr(const Object& obj, const std::string& name) {
  if (!obj.has_attr(name)) obj.fail(fmt::format("attribute '{}': missing", name));
  Id attr(H5Aopen(obj.id(), name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) obj.fail(fmt::format("attribute '{}': cannot open", name));
  Id space(H5Aget_space(attr.get()), H5Sclose);
  hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (n != 1) obj.fail(fmt::format("attribute '{}': expected one value, found {}", name, n));
  return attr;
}

H5T_class_t attr_type_class(const Object& obj, const Id& attr, const std::string& name) {
  Id type(H5Aget_type(attr.get()), H5Tclose);
  H5T_class_t c = type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
  if (c == H5T_NO_CLASS) obj.fail(fmt::format("attribute '{}': cannot read its type", name));
  return c;
}

template <typename T>
T read_number_attr(const Object& obj, const std::string& name, hid_t mtype, bool integer) {
  Id attr = open_scalar_attr(obj, name);
  H5T_class_t c = attr_type_class(obj, attr, name);
  if (c != H5T_INTEGER && !(c == H5T_FLOAT && !integer)) {
    obj.fail(fmt::format("attribute '{}': expected {}, found a value of another type", name,
                         integer ? "an integer" : "a number"));
  }
  T value{};
  if (H5Aread(attr.get(), mtype, &value) < 0) obj.fail(fmt::format("attribute '{}': read failed", name));
  return value;
}

}  // namespace

void Object::set_attr(const std::string& name, int64_t value) const {
  write_attr(*this, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}
void Object::set_attr(const std::string& name, uint64_t value) const {
  write_attr(*this, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}
void Object::set_attr(const std::string& name, double value) const {
  write_attr(*this, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}
void Object::set_attr(const std::string& name, std::string_view value) const {
  if (value.find('\0') != std::string_view::npos) {
    fail(fmt::format("attribute '{}': a string with a NUL byte cannot be stored (HDF5 strings end at one)", name));
  }
  Id type = string_type(value.size());
  std::string buffer(value);
  if (buffer.empty()) buffer.push_back('\0');
  write_attr(*this, name, type.get(), type.get(), buffer.data());
}

int64_t Object::attr_i64(const std::string& name) const {
  return read_number_attr<int64_t>(*this, name, H5T_NATIVE_INT64, true);
}
uint64_t Object::attr_u64(const std::string& name) const {
  return read_number_attr<uint64_t>(*this, name, H5T_NATIVE_UINT64, true);
}
double Object::attr_f64(const std::string& name) const {
  return read_number_attr<double>(*this, name, H5T_NATIVE_DOUBLE, false);
}

std::string Object::attr_str(const std::string& name) const {
  Id attr = open_scalar_attr(*this, name);
  Id type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid()) fail(fmt::format("attribute '{}': cannot read its type", name));
  return read_string_value(*this, fmt::format("attribute '{}'", name), type.get(),
                           [&](hid_t mtype, void* buf) { return H5Aread(attr.get(), mtype, buf); });
}

char Object::attr_class(const std::string& name) const {
  Id attr = open_scalar_attr(*this, name);
  switch (attr_type_class(*this, attr, name)) {
    case H5T_INTEGER: return 'i';
    case H5T_FLOAT: return 'f';
    case H5T_STRING: return 's';
    default: return '?';
  }
}

// --- datasets --------------------------------------------------------------------------------------

bool Dataset::is_string() const {
  Id type(H5Dget_type(id()), H5Tclose);
  if (!type.valid()) fail("cannot read its element type");
  return H5Tget_class(type.get()) == H5T_STRING;
}

DType Dataset::dtype() const {
  Id type(H5Dget_type(id()), H5Tclose);
  if (!type.valid()) fail("cannot read its element type");
  H5T_class_t c = H5Tget_class(type.get());
  size_t size = H5Tget_size(type.get());
  if (c == H5T_FLOAT && size == 4) return DType::f32;
  if (c == H5T_FLOAT && size == 8) return DType::f64;
  if (c == H5T_INTEGER) {
    H5T_sign_t sign = H5Tget_sign(type.get());
    if (size == 8 && sign == H5T_SGN_2) return DType::i64;
    if (size == 1 && sign == H5T_SGN_NONE) return DType::u8;
  }
  fail(fmt::format("element type (HDF5 class {}, {} bytes) is not one of lintra's dtypes "
                   "(float32, float64, int64, uint8)", int(c), size));
}

Shape Dataset::shape() const {
  Id space(H5Dget_space(id()), H5Sclose);
  if (!space.valid()) fail("cannot read its dataspace");
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail("cannot read its rank");
  std::vector<hsize_t> dims(size_t(rank), 0);
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) fail("cannot read its shape");
  return Shape(dims.begin(), dims.end());
}

void Dataset::read(DType dtype, void* out, int64_t numel) const {
  int64_t have = numel_of(shape());
  if (have != numel) fail(fmt::format("read of {} elements into a buffer of {}", have, numel));
  if (numel == 0) return;
  if (H5Dread(id(), memory_type(dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) fail("H5Dread failed");
}

std::string Dataset::read_string() const {
  Id type(H5Dget_type(id()), H5Tclose);
  if (!type.valid()) fail("cannot read its element type");
  if (numel_of(shape()) != 1) fail("expected a single string");
  return read_string_value(*this, "string", type.get(), [&](hid_t mtype, void* buf) {
    return H5Dread(id(), mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  });
}

int64_t Dataset::file_offset() const {
  haddr_t offset = H5Dget_offset(id());
  H5Eclear2(H5E_DEFAULT);  // "no storage" is an answer here, not an error
  return offset == HADDR_UNDEF ? -1 : int64_t(offset);
}

void Dataset::close() {
  if (id_.close() < 0) fail("H5Dclose failed");
}

// --- groups ----------------------------------------------------------------------------------------

Group Group::create_group(const std::string& name) const {
  Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  if (!gcpl.valid() || H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
    fail(fmt::format("group {}: cannot make its property list", child_path(name)));
  }
  Id g(H5Gcreate2(id(), name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) fail(fmt::format("cannot create group {}", child_path(name)));
  return Group(std::move(g), file_, child_path(name));
}

Group Group::open_group(const std::string& name) const {
  LinkKind k = kind_of(name);
  if (k == LinkKind::none) fail(fmt::format("group {}: not found", child_path(name)));
  if (k != LinkKind::group) fail(fmt::format("{}: expected a group, found a dataset", child_path(name)));
  Id g(H5Gopen2(id(), name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) fail(fmt::format("group {}: cannot open", child_path(name)));
  return Group(std::move(g), file_, child_path(name));
}

LinkKind Group::kind_of(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || name == "." ) return LinkKind::none;
  htri_t e = H5Lexists(id(), name.c_str(), H5P_DEFAULT);
  if (e < 0) fail(fmt::format("cannot look up {}", child_path(name)));
  if (e == 0) return LinkKind::none;
  Id obj(H5Oopen(id(), name.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.valid()) fail(fmt::format("{}: cannot open", child_path(name)));
  switch (H5Iget_type(obj.get())) {
    case H5I_GROUP: return LinkKind::group;
    case H5I_DATASET: return LinkKind::dataset;
    default: return LinkKind::other;
  }
}

std::vector<std::string> Group::children() const {
  H5_index_t index = H5_INDEX_NAME;
  Id gcpl(H5Gget_create_plist(id()), H5Pclose);
  unsigned flags = 0;
  if (gcpl.valid() && H5Pget_link_creation_order(gcpl.get(), &flags) >= 0 && (flags & H5P_CRT_ORDER_INDEXED)) {
    index = H5_INDEX_CRT_ORDER;
  }
  std::vector<std::string> names;
  hsize_t idx = 0;
  if (H5Literate(id(), index, H5_ITER_INC, &idx, collect_link, &names) < 0) fail("cannot list its members");
  return names;
}

void Group::unlink(const std::string& name) const {
  if (H5Ldelete(id(), name.c_str(), H5P_DEFAULT) < 0) fail(fmt::format("cannot delete {}", child_path(name)));
}

Dataset Group::create_dataset(const std::string& name, DType dtype, const Shape& shape, const void* data) const {
  std::string where = child_path(name);
  std::vector<hsize_t> dims(shape.begin(), shape.end());
  Id space(shape.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
           H5Sclose);
  if (!space.valid()) fail(fmt::format("dataset {}: cannot make a dataspace for shape {}", where, shape_str(shape)));
  Id d(H5Dcreate2(id(), name.c_str(), file_type(dtype), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
       H5Dclose);
  if (!d.valid()) fail(fmt::format("dataset {}: cannot create", where));
  Dataset ds(std::move(d), file_, where);
  if (numel_of(shape) > 0 &&
      H5Dwrite(ds.id(), memory_type(dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    ds.fail("H5Dwrite failed");
  }
  return ds;
}

Dataset Group::write_string(const std::string& name, std::string_view text) const {
  std::string where = child_path(name);
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    fail(fmt::format("dataset {}: the string holds a NUL byte at offset {}; HDF5 strings end at one, so it "
                     "would read back cut short",
                     where, nul));
  }
  Id type = string_type(text.size());
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.valid()) fail(fmt::format("dataset {}: cannot make a dataspace", where));
  Id d(H5Dcreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!d.valid()) fail(fmt::format("dataset {}: cannot create", where));
  Dataset ds(std::move(d), file_, where);
  std::string buffer(text);
  if (buffer.empty()) buffer.push_back('\0');
  if (H5Dwrite(ds.id(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0) ds.fail("H5Dwrite failed");
  return ds;
}

Dataset Group::open_dataset(const std::string& name) const {
  LinkKind k = kind_of(name);
  if (k == LinkKind::none) fail(fmt::format("dataset {}: not found", child_path(name)));
  if (k != LinkKind::dataset) fail(fmt::format("{}: expected a dataset, found a group", child_path(name)));
  Id d(H5Dopen2(id(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.valid()) fail(fmt::format("dataset {}: cannot open", child_path(name)));
  return Dataset(std::move(d), file_, child_path(name));
}

// --- files -----------------------------------------------------------------------------------------

namespace {

// File access: close every object of the file with it (no half-open file after an error), and the
// HDF5 1.8 object formats (metadata checksums) that every HDF5 >= 1.8 reads.
Id access_plist(const std::string& path) {
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.valid() || H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0 ||
      H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
    throw Error(fmt::format("{}: cannot make HDF5 file-access properties (HDF5: {})", path, take_error_stack()));
  }
  return fapl;
}

}  // namespace

File File::create(const std::string& path) {
  silence_hdf5_errors();
  Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  if (!fcpl.valid() || H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
    throw Error(fmt::format("{}: cannot make HDF5 file-creation properties (HDF5: {})", path, take_error_stack()));
  }
  Id fapl = access_plist(path);
  Id f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
  if (!f.valid()) throw Error(fmt::format("{}: cannot create (HDF5: {})", path, take_error_stack()));
  return File(std::move(f), path);
}

File File::open(const std::string& path, bool writable) {
  silence_hdf5_errors();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(fmt::format("{}: no such file", path));
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(fmt::format("{}: not a regular file", path));
  htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) {
    H5Eclear2(H5E_DEFAULT);
    throw Error(fmt::format("{}: not an HDF5 file (no HDF5 signature; {} bytes)", path,
                            std::filesystem::file_size(path, ec)));
  }
  if (is_hdf5 < 0) throw Error(fmt::format("{}: cannot read (HDF5: {})", path, take_error_stack()));
  Id fapl = access_plist(path);
  Id f(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!f.valid()) {
    throw Error(fmt::format("{}: cannot open as HDF5, the file is damaged or truncated (HDF5: {})", path,
                            take_error_stack()));
  }
  return File(std::move(f), path);
}

int64_t File::size() const {
  hsize_t size = 0;
  if (H5Fget_filesize(id(), &size) < 0) fail("cannot read the file size");
  return int64_t(size);
}

void File::flush() const {
  if (H5Fflush(id(), H5F_SCOPE_GLOBAL) < 0) fail("H5Fflush failed");
}

void File::close() {
  if (!id_.valid()) return;
  if (id_.close() < 0) fail("H5Fclose failed");
}

}  // namespace lintra::h5
