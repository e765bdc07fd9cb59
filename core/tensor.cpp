#include "core/tensor.h"

#include <algorithm>
#include <cstring>

#include "core/device_copy.h"
#include "core/kernels.h"
#include "core/rng.h"

namespace lintra {

// --- factories -----------------------------------------------------------------------------------

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t d : shape) LINTRA_CHECK(d >= 0, "empty: negative size in shape {}", shape_str(shape));
  Tensor t;
  t.storage_ = std::make_shared<Storage>(size_t(numel_of(shape)) * dtype_size(dtype), device);
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape);
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0.0, dtype, device); }
Tensor Tensor::ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }

Tensor Tensor::full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  kernels::on(t).fill(t, value);
  return t;
}

Tensor Tensor::scalar(double value, DType dtype, Device device) { return full({}, value, dtype, device); }

Tensor Tensor::arange(int64_t n, DType dtype, Device device) {
  Tensor t = empty({n}, dtype, device);
  kernels::on(t).arange(t, 0.0, 1.0);
  return t;
}

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, const Shape& shape, Device device) {
  LINTRA_CHECK(int64_t(values.size()) == numel_of(shape), "from_vector: {} values for shape {} ({} elements)",
               values.size(), shape_str(shape), numel_of(shape));
  Tensor t = empty(shape, dtype_of<T>::value);
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  return t.to(device);
}
template Tensor Tensor::from_vector(const std::vector<float>&, const Shape&, Device);
template Tensor Tensor::from_vector(const std::vector<double>&, const Shape&, Device);
template Tensor Tensor::from_vector(const std::vector<int64_t>&, const Shape&, Device);
template Tensor Tensor::from_vector(const std::vector<uint8_t>&, const Shape&, Device);

Tensor Tensor::uniform(const Shape& shape, Generator& gen, double low, double high, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  kernels::on(t).uniform(t, gen, low, high);
  return t;
}

Tensor Tensor::normal(const Shape& shape, Generator& gen, double mean, double std, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  kernels::on(t).normal(t, gen, mean, std);
  return t;
}

// --- metadata ------------------------------------------------------------------------------------

int64_t Tensor::size(int64_t d) const { return shape_[size_t(normalize_dim(d, shape_, "size"))]; }
int64_t Tensor::stride(int64_t d) const { return strides_[size_t(normalize_dim(d, shape_, "stride"))]; }

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // no element to misplace (as PyTorch)
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

std::string Tensor::describe() const {
  if (!defined()) return "undefined";
  if (device().is_cpu()) return fmt::format("{}{}", dtype_, shape_str(shape_));
  return fmt::format("{}{} on {}", dtype_, shape_str(shape_), device());
}

void Tensor::check_host_access(const char* what) const {
  LINTRA_CHECK(defined(), "{} on an undefined tensor", what);
  LINTRA_CHECK(device().is_cpu(),
               "{} reads the elements of {} on the host, but host code may read only CPU tensors: copy it first "
               "with .cpu() (or .to(Device::cpu)); code above the kernels should call an op instead",
               what, describe());
}

void* Tensor::unchecked_data() const {
  LINTRA_CHECK(defined(), "raw_data() on an undefined tensor");
  return static_cast<char*>(storage_->data()) + offset_ * int64_t(dtype_size(dtype_));
}

void* Tensor::raw_data() const {
  check_host_access("raw_data()");
  return unchecked_data();
}

// --- views ---------------------------------------------------------------------------------------

namespace {

Shape infer_shape(const Shape& requested, int64_t numel, const char* op, const Shape& from) {
  Shape shape = requested;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      LINTRA_CHECK(infer < 0, "{}: more than one -1 in {}", op, shape_str(requested));
      infer = int64_t(i);
    } else {
      LINTRA_CHECK(shape[i] >= 0, "{}: invalid size {} in {}", op, shape[i], shape_str(requested));
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    LINTRA_CHECK(known > 0 && numel % known == 0, "{}: cannot reshape {} ({} elements) into {}", op,
                 shape_str(from), numel, shape_str(requested));
    shape[size_t(infer)] = numel / known;
  }
  LINTRA_CHECK(numel_of(shape) == numel, "{}: cannot reshape {} ({} elements) into {} ({} elements)", op,
               shape_str(from), numel, shape_str(shape), numel_of(shape));
  return shape;
}

// Strides for viewing (shape, strides) as new_shape without a copy, or empty when impossible.
// Walks groups of old dims whose product matches a group of new dims; each old group must be
// internally contiguous (PyTorch's computeStride rule).
bool view_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape, Strides& out) {
  out.assign(new_shape.size(), 0);
  if (numel_of(old_shape) == 0 || old_shape.empty()) {  // no elements, or one (0-d): any shape views it
    out = contiguous_strides(new_shape);
    return true;
  }
  int64_t view_d = int64_t(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[size_t(d)];
    bool boundary = d == 0 || (old_shape[size_t(d - 1)] != 1 &&
                               old_strides[size_t(d - 1)] != tensor_numel * chunk_base_stride);
    if (boundary) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[size_t(view_d)] == 1)) {
        out[size_t(view_d)] = view_numel * chunk_base_stride;
        view_numel *= new_shape[size_t(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[size_t(d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

Tensor Tensor::view(const Shape& requested) const {
  Shape shape = infer_shape(requested, numel(), "view", shape_);
  Strides strides;
  LINTRA_CHECK(view_strides(shape_, strides_, shape, strides),
               "view: cannot view {} with strides {} as {} without a copy; use reshape()", shape_str(shape_),
               shape_str(strides_), shape_str(shape));
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::reshape(const Shape& requested) const {
  Shape shape = infer_shape(requested, numel(), "reshape", shape_);
  Strides strides;
  if (view_strides(shape_, strides_, shape, strides)) return as_strided(shape, strides, offset_);
  return contiguous().view(shape);
}

Tensor Tensor::as_strided(const Shape& shape, const Strides& strides, int64_t offset) const {
  LINTRA_CHECK(shape.size() == strides.size(), "as_strided: shape {} and strides {} differ in length",
               shape_str(shape), shape_str(strides));
  Tensor t = *this;
  t.shape_ = shape;
  t.strides_ = strides;
  t.offset_ = offset;
  return t;
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  LINTRA_CHECK(int64_t(dims.size()) == dim(), "permute: {} dims given for a tensor of shape {}", dims.size(),
               shape_str(shape_));
  Shape shape(dims.size());
  Strides strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = normalize_dim(dims[i], shape_, "permute");
    LINTRA_CHECK(!seen[size_t(d)], "permute: dim {} repeated in [{}]", d, fmt::join(dims, ", "));
    seen[size_t(d)] = true;
    shape[i] = shape_[size_t(d)];
    strides[i] = strides_[size_t(d)];
  }
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  d0 = normalize_dim(d0, shape_, "transpose");
  d1 = normalize_dim(d1, shape_, "transpose");
  Shape shape = shape_;
  Strides strides = strides_;
  std::swap(shape[size_t(d0)], shape[size_t(d1)]);
  std::swap(strides[size_t(d0)], strides[size_t(d1)]);
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::squeeze(int64_t d) const {
  d = normalize_dim(d, shape_, "squeeze");
  LINTRA_CHECK(shape_[size_t(d)] == 1, "squeeze: dim {} of {} has size {}, not 1", d, shape_str(shape_),
               shape_[size_t(d)]);
  Shape shape = shape_;
  Strides strides = strides_;
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = normalize_dim(d, dim() + 1, "unsqueeze");
  Shape shape = shape_;
  Strides strides = strides_;
  int64_t stride = size_t(d) < shape_.size() ? strides_[size_t(d)] * shape_[size_t(d)] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::expand(const Shape& requested) const {
  LINTRA_CHECK(requested.size() >= shape_.size(), "expand: cannot expand {} to fewer dims {}", shape_str(shape_),
               shape_str(requested));
  size_t lead = requested.size() - shape_.size();
  Shape shape(requested.size());
  Strides strides(requested.size());
  for (size_t i = 0; i < requested.size(); ++i) {
    if (i < lead) {
      LINTRA_CHECK(requested[i] >= 0, "expand: invalid size {} for new dim {}", requested[i], i);
      shape[i] = requested[i];
      strides[i] = 0;
      continue;
    }
    int64_t have = shape_[i - lead];
    int64_t want = requested[i] == -1 ? have : requested[i];
    LINTRA_CHECK(want == have || have == 1, "expand: cannot expand {} to {} (dim {}: {} → {})", shape_str(shape_),
                 shape_str(requested), i, have, want);
    shape[i] = want;
    strides[i] = want == have ? strides_[i - lead] : 0;
  }
  return as_strided(shape, strides, offset_);
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t end, int64_t step) const {
  d = normalize_dim(d, shape_, "slice");
  LINTRA_CHECK(step > 0, "slice: step must be positive, got {}", step);
  int64_t n = shape_[size_t(d)];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  Shape shape = shape_;
  Strides strides = strides_;
  shape[size_t(d)] = (end - start + step - 1) / step;
  strides[size_t(d)] = strides_[size_t(d)] * step;
  return as_strided(shape, strides, offset_ + start * strides_[size_t(d)]);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  d = normalize_dim(d, shape_, "narrow");
  int64_t n = shape_[size_t(d)];
  LINTRA_CHECK(start >= 0 && length >= 0 && start + length <= n,
               "narrow: [{}, {}) is out of range for dim {} of size {} (shape {})", start, start + length, d, n,
               shape_str(shape_));
  return slice(d, start, start + length);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  d = normalize_dim(d, shape_, "select");
  int64_t n = shape_[size_t(d)];
  LINTRA_CHECK(index >= -n && index < n, "select: index {} out of range for dim {} of size {}", index, d, n);
  if (index < 0) index += n;
  return narrow(d, index, 1).squeeze(d);
}

// --- copies --------------------------------------------------------------------------------------

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape_, dtype_, device());
  kernels::on(out).copy(*this, out);
  return out;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor out = empty(shape_, dtype, device());
  kernels::on(out).copy(*this, out);
  return out;
}

Tensor Tensor::to(Device device) const {
  LINTRA_CHECK(defined(), "to({}): undefined tensor", device);
  if (device == this->device()) return *this;
  return copy_to_device(*this, device);
}

Tensor& Tensor::fill_(double value) {
  if (is_contiguous()) {
    kernels::on(*this).fill(*this, value);
  } else {
    kernels::on(*this).copy(Tensor::full({}, value, dtype_, device()), *this);
  }
  bump_version();
  return *this;
}

Tensor& Tensor::copy_(const Tensor& src) {
  Shape b = broadcast_shapes(src.shape(), shape_, "copy_");
  LINTRA_CHECK(b == shape_, "copy_: source {} does not broadcast to destination {}", shape_str(src.shape()),
               shape_str(shape_));
  const Tensor from = src.device() == device() ? src : src.to(device());
  kernels::on(*this).copy(from, *this);
  bump_version();
  return *this;
}

// --- element access ------------------------------------------------------------------------------

double Tensor::item() const {
  check_host_access("item()");
  LINTRA_CHECK(numel() == 1, "item: tensor of shape {} has {} elements, not 1", shape_str(shape_), numel());
  return at(std::vector<int64_t>(shape_.size(), 0));
}

double Tensor::at(const std::vector<int64_t>& index) const {
  check_host_access("at()");
  LINTRA_CHECK(int64_t(index.size()) == dim(), "at: {} indices for shape {}", index.size(), shape_str(shape_));
  int64_t off = offset_;
  for (size_t i = 0; i < index.size(); ++i) {
    LINTRA_CHECK(index[i] >= 0 && index[i] < shape_[i], "at: index {} out of range for dim {} of size {}",
                 index[i], i, shape_[i]);
    off += index[i] * strides_[i];
  }
  const char* base = static_cast<const char*>(storage_->data());
  return dispatch_all(dtype_, "at", [&]<typename scalar_t>() {
    return double(reinterpret_cast<const scalar_t*>(base)[off]);
  });
}

template <typename T> std::vector<T> Tensor::to_vector() const {
  check_host_access("to_vector()");
  Tensor c = to(dtype_of<T>::value).contiguous();
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}
template std::vector<float> Tensor::to_vector() const;
template std::vector<double> Tensor::to_vector() const;
template std::vector<int64_t> Tensor::to_vector() const;
template std::vector<uint8_t> Tensor::to_vector() const;

}  // namespace lintra
