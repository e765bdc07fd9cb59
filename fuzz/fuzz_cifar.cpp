// fuzz_cifar.cpp — the CIFAR-10 binary reader (data/images/cifar.h; photos32 is written in the same
// format). Input: the bytes of one batch file.
// Checks: only lintra::Error escapes; records that read have a label below 10 and 3072 bytes of image,
// and each converts to the interleaved (HWC) order.
#include <cstdint>
#include <vector>

#include "data/images/cifar.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using lintra::data::Cifar10Dataset;
  const std::vector<uint8_t> bytes(data, data + size);
  std::vector<uint8_t> labels, planes;
  if (!lintra::fuzz::accepts([&] { lintra::data::parse_cifar_records(bytes, "batch.bin", labels, planes); })) return 0;
  FUZZ_CHECK(planes.size() == labels.size() * size_t(Cifar10Dataset::kImageBytes), "planes and labels disagree");
  std::vector<uint8_t> hwc(static_cast<size_t>(Cifar10Dataset::kImageBytes));
  for (size_t r = 0; r < labels.size(); ++r) {
    FUZZ_CHECK(labels[r] < Cifar10Dataset::kNumClasses, "a label above 9 was accepted");
    lintra::data::cifar_planar_to_interleaved(planes.data() + r * size_t(Cifar10Dataset::kImageBytes), hwc.data());
  }
  return 0;
}
