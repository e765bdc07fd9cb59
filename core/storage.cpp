#include "core/storage.h"

#include "core/allocator.h"
#include "core/error.h"

namespace lintra {

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  allocator_ = &allocator_for(device);
  data_ = allocator_->allocate(nbytes);
}

Storage::Storage(std::shared_ptr<Storage> owner, Device as)
    : data_(owner->data()), nbytes_(owner->nbytes()), device_(as), owner_(std::move(owner)) {
  LINTRA_CHECK(as.host_addressable() && owner_->device().host_addressable(),
               "Storage: {} memory cannot be borrowed as {} memory", owner_->device(), as);
}

Storage::~Storage() {
  if (allocator_ != nullptr) allocator_->deallocate(data_, nbytes_);
}

}  // namespace lintra
