// test_on_device.cpp — invariant: the CTC and mixture-of-logistics losses' backward agrees with
// central finite differences (gradcheck, float64) on each device besides the CPU: the strict test device
// (instantiation Strict: storage the host may not read, so a loss that reads its inputs, targets or
// lengths on the host fails here) and the GPU (instantiation Cuda, cuda:0: the CUDA kernels; skipped where
// no GPU is visible or the build has no CUDA). test_ctc.cpp and test_mixture_of_logistics.cpp check the
// same losses on the CPU against brute force and in every branch. Tolerances: gradcheck's defaults.
#include <gtest/gtest.h>

#include "autograd/gradcheck.h"
#include "nn/losses/ctc.h"
#include "nn/losses/mixture_of_logistics.h"
#include "tests/nn/nn_test_util.h"

namespace lintra::nn {
namespace {

class NnLossesOnDevice : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    LINTRA_SKIP_WITHOUT_GPU_ON(dev());
  }
  Device dev() const { return GetParam(); }
  Tensor ints(std::vector<int64_t> v, const Shape& s) const { return Tensor::from_vector(v, s).to(dev()); }
};

TEST_P(NnLossesOnDevice, CtcGradcheck) {
  const int64_t B = 3, T = 5, C = 4, S = 3;
  Generator gen(11);
  const Tensor logits = Tensor::normal({B, T, C}, gen, 0, 1, DType::f64).to(dev());
  const Tensor targets = ints({1, 1, 3, 2, 0, 0, 3, 2, 1}, {B, S}), target_lengths = ints({3, 1, 2}, {B});
  const Tensor input_lengths = ints({5, 3, 4}, {B});
  for (Reduction r : {Reduction::none, Reduction::mean}) {
    GradcheckResult res = gradcheck(
        [&](const std::vector<Var>& in) {
          return ctc_loss(log_softmax(in[0], -1), targets, input_lengths, target_lengths, r);
        },
        {logits});
    EXPECT_TRUE(res.ok) << dev().str() << ": " << res.message;
    EXPECT_GT(res.entries, 0);
  }
}

TEST_P(NnLossesOnDevice, MixtureOfLogisticsGradcheck) {
  // Two logistics (3 · 2 parameters a pixel) at interior and edge pixels.
  Generator gen(12);
  const Tensor params = Tensor::uniform({2, 4, 3 * 2}, gen, -1.5, 1.5, DType::f64).to(dev());
  const Tensor pixels = ints({0, 255, 17, 128, 200, 1, 254, 90}, {2, 4});
  for (Reduction r : {Reduction::mean, Reduction::none}) {
    GradcheckResult res = gradcheck(
        [&](const std::vector<Var>& in) { return mixture_of_logistics_nll(in[0], pixels, r); }, {params});
    EXPECT_TRUE(res.ok) << dev().str() << ": " << res.message;
    EXPECT_GT(res.entries, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Strict, NnLossesOnDevice, ::testing::Values(Device::strict()), lintra::testing::device_test_name);
INSTANTIATE_TEST_SUITE_P(Cuda, NnLossesOnDevice, ::testing::Values(Device::cuda(0)), lintra::testing::device_test_name);

}  // namespace
}  // namespace lintra::nn
