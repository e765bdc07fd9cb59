// fuzz_idx.cpp — the IDX reader (data/images/idx.h: MNIST, Fashion-MNIST), gzipped or not, and
// MnistDataset over what it reads.
//
// Input: byte 0 picks the rank (1–4) of a first array; bytes 1–4 (little-endian, modulo what is
// left) cut the rest into two files: the first is read at that rank, and the two are read again as
// MNIST images (rank 3) and labels (rank 1). A file starting with the gzip magic is gunzipped first.
// Checks: only lintra::Error escapes; an array that reads holds exactly the product of its dims;
// every sample of a data set that loads has rows × cols bytes and a label below 10.
#include <cstdint>
#include <vector>

#include "data/files/file_io.h"
#include "data/images/idx.h"
#include "fuzz/fuzz_util.h"

namespace {

using namespace lintra;

std::vector<uint8_t> maybe_gunzip(std::vector<uint8_t> bytes, const char* name) {
  if (bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) return data::gunzip(bytes, name);
  return bytes;
}

void array(const std::vector<uint8_t>& bytes, int rank) {
  data::IdxArray a;
  if (!fuzz::accepts([&] { a = data::parse_idx(maybe_gunzip(bytes, "a.gz"), "a", rank); })) return;
  uint64_t n = 1;
  for (int64_t d : a.dims) n *= uint64_t(d);
  FUZZ_CHECK(a.dims.size() == size_t(rank) && n == a.data.size(), "an IDX array whose data is not its dims' product");
}

void mnist(const std::vector<uint8_t>& images, const std::vector<uint8_t>& labels) {
  fuzz::accepts([&] {
    data::MnistDataset d = data::MnistDataset::from_arrays(data::parse_idx(maybe_gunzip(images, "i.gz"), "images", 3),
                                                         data::parse_idx(maybe_gunzip(labels, "l.gz"), "labels", 1), "fuzz");
    for (int64_t i = 0; i < d.size() && i < 8; ++i) {
      const data::Sample s = d.get(i);
      FUZZ_CHECK(int64_t(s.bytes.size()) == d.rows() * d.cols() && s.label < 10, "a bad MNIST sample");
      FUZZ_CHECK(d.length(i) == d.rows() * d.cols(), "a bad MNIST length");
    }
    d.content_digest();
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const int rank = 1 + data[0] % 4;
  const uint32_t cut = uint32_t(data[1]) | uint32_t(data[2]) << 8 | uint32_t(data[3]) << 16 | uint32_t(data[4]) << 24;
  const size_t rest = size - 5, first = rest == 0 ? 0 : cut % (rest + 1);
  const std::vector<uint8_t> a(data + 5, data + 5 + first), b(data + 5 + first, data + size);
  array(a, rank);
  mnist(a, b);
  return 0;
}
