// digest.cpp — XXH3-64 through libxxhash.
#include "data/files/digest.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "core/error.h"

namespace lintra::data {

struct Xxh3::State {
  XXH3_state_t* s = nullptr;
};

Xxh3::Xxh3() : state_(std::make_unique<State>()) {
  state_->s = XXH3_createState();
  LINTRA_CHECK(state_->s != nullptr, "Xxh3: out of memory");
  XXH3_64bits_reset(state_->s);
}

Xxh3::~Xxh3() { XXH3_freeState(state_->s); }

void Xxh3::update(const void* data, size_t nbytes) {
  if (nbytes > 0) XXH3_64bits_update(state_->s, data, nbytes);
}

uint64_t Xxh3::digest() const { return XXH3_64bits_digest(state_->s); }

uint64_t xxh3_64(const void* data, size_t nbytes) { return XXH3_64bits(data, nbytes); }

std::string digest_hex(uint64_t digest) { return fmt::format("{:016x}", digest); }

}  // namespace lintra::data
