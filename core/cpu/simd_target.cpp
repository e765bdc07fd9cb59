// cpu/simd_target.cpp — core/simd.h: the name of the Highway target that dynamic dispatch picks,
// reported by a dispatched function of its own (so that a forced target is seen as the kernels see it).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/simd_target.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace lintra::HWY_NAMESPACE {
const char* TargetOfThisCode() { return hwy::TargetName(HWY_TARGET); }
}  // namespace lintra::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/simd.h"

namespace lintra {

HWY_EXPORT(TargetOfThisCode);

std::string simd_target() { return HWY_DYNAMIC_DISPATCH(TargetOfThisCode)(); }

std::vector<int64_t> simd_targets() { return hwy::SupportedAndGeneratedTargets(); }

std::string simd_target_name(int64_t target) { return hwy::TargetName(target); }

void force_simd_target(const std::string& name) {
  if (name.empty() || name == "best") {
    hwy::SetSupportedTargetsForTest(0);
    return;
  }
  std::vector<std::string> names;
  for (int64_t t : simd_targets()) {
    if (simd_target_name(t) == name) {
      hwy::SetSupportedTargetsForTest(t);
      return;
    }
    names.push_back(simd_target_name(t));
  }
  LINTRA_CHECK(false, "unknown SIMD target '{}': this binary and CPU can run {}", name, fmt::join(names, ", "));
}

}  // namespace lintra
#endif  // HWY_ONCE
