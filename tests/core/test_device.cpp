// test_device.cpp — devices as values and the strict test device (core/device.h, DESIGN.md §3).
// Invariants: devices parse and print ("cpu", "cuda:1", "strict:0") and bad names are clear errors;
// every factory makes its tensor on the device asked for; host access (data<T>(), raw_data(), item(),
// at(), to_vector()) to strict memory throws naming the tensor's device and the fix (.cpu()); to() and
// cross-device copy_() are explicit copies that round-trip exactly; an op mixing devices throws naming
// both (the one check in the kernel call); each strict device has an allocator of its own; CUDA tensors
// without CUDA kernels are a clear error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/allocator.h"
#include "core/kernels.h"
#include "core/ops.h"
#include "core/rng.h"
#include "tests/core/core_test_util.h"

namespace lintra {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::error_of;

const Device kStrict = Device::strict();

TEST(CoreDevice, ParseAndPrint) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu);
  EXPECT_EQ(Device::parse("cuda"), Device::cuda(0));
  EXPECT_EQ(Device::parse("cuda:1"), Device::cuda(1));
  EXPECT_EQ(Device::parse("strict"), Device::strict(0));
  EXPECT_EQ(Device::parse("strict:3"), Device::strict(3));
  EXPECT_EQ(Device::cpu.str(), "cpu");
  EXPECT_EQ(Device::cuda(1).str(), "cuda:1");
  EXPECT_EQ(fmt::format("{}", Device::strict(2)), "strict:2");
  for (const char* s : {"cpu", "cuda:0", "cuda:7", "strict:0", "strict:5"})
    EXPECT_EQ(Device::parse(s).str(), s);
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
  EXPECT_NE(Device::strict(0), Device::cpu);
  EXPECT_TRUE(Device::strict().host_addressable());
  EXPECT_FALSE(Device::cuda().host_addressable());
}

TEST(CoreDevice, BadNamesAreClearErrors) {
  EXPECT_HAS(error_of([] { Device::parse("gpu"); }), "unknown device 'gpu'");
  EXPECT_HAS(error_of([] { Device::parse("cuda:x"); }), "non-negative integer");
  EXPECT_HAS(error_of([] { Device::parse("cuda:-1"); }), "non-negative integer");
  EXPECT_HAS(error_of([] { Device::parse("cpu:1"); }), "no index other than 0");
  EXPECT_HAS(error_of([] { Device::parse("strict:99"); }), "strict:0 … strict:7");
}

TEST(CoreDevice, EveryFactoryTakesADevice) {
  Generator gen(1);
  const std::vector<Tensor> made = {
      Tensor::empty({2, 3}, DType::f32, kStrict),      Tensor::zeros({2}, DType::f64, kStrict),
      Tensor::ones({4}, DType::i64, kStrict),          Tensor::full({2, 2}, 7, DType::u8, kStrict),
      Tensor::scalar(3.5, DType::f32, kStrict),        Tensor::arange(5, DType::i64, kStrict),
      Tensor::from_vector({1.f, 2.f}, {2}, kStrict),   Tensor::uniform({3}, gen, 0, 1, DType::f32, kStrict),
      Tensor::normal({3}, gen, 0, 1, DType::f64, kStrict)};
  for (const Tensor& t : made) EXPECT_EQ(t.device(), kStrict) << t.describe();
  EXPECT_EQ(Tensor::arange(5, DType::f32, kStrict).cpu().to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Tensor::full({2}, 7, DType::u8, kStrict).cpu().to_vector<uint8_t>(), (std::vector<uint8_t>{7, 7}));
  EXPECT_EQ(Tensor::zeros({2}).device(), Device::cpu);  // the CPU by default
}

TEST(CoreDevice, StrictMemoryRefusesHostAccess) {
  Tensor t = Tensor::from_vector({1.f, 2.f, 3.f}, {3}, kStrict);
  for (const std::string& msg : {error_of([&] { t.data<float>(); }), error_of([&] { t.raw_data(); }),
                                 error_of([&] { t.select(0, 1).item(); }), error_of([&] { t.at({0}); }),
                                 error_of([&] { t.to_vector<float>(); })}) {
    EXPECT_THAT(msg, AllOf(HasSubstr("strict:0"), HasSubstr("float32"), HasSubstr(".cpu()"), HasSubstr("host")));
  }
  EXPECT_HAS(error_of([&] { t.to_vector<float>(); }), "to_vector()");
  EXPECT_HAS(error_of([&] { t.data<float>(); }), "data<T>()");
  EXPECT_EQ(t.describe(), "float32[3] on strict:0");
}

TEST(CoreDevice, ToIsAnExactRoundTrip) {
  Generator gen(3);
  Tensor x = Tensor::normal({3, 4}, gen, 0, 1, DType::f64);
  Tensor s = x.to(kStrict);
  EXPECT_EQ(s.device(), kStrict);
  EXPECT_FALSE(s.shares_storage_with(x));
  EXPECT_EQ(s.cpu().to_vector<double>(), x.to_vector<double>());
  EXPECT_TRUE(s.to(kStrict).shares_storage_with(s));  // already there: the same tensor
  // A non-contiguous view is copied contiguous; between two strict devices too.
  Tensor v = s.transpose(0, 1).to(Device::strict(1));
  EXPECT_EQ(v.device(), Device::strict(1));
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.cpu().to_vector<double>(), x.transpose(0, 1).contiguous().to_vector<double>());
}

TEST(CoreDevice, CopyAcrossDevicesIsExplicit) {
  Tensor dst = Tensor::zeros({2, 3}, DType::f32, kStrict);
  dst.narrow(1, 1, 2).copy_(Tensor::from_vector({1.f, 2.f, 3.f, 4.f}, {2, 2}));  // from the CPU
  EXPECT_EQ(dst.cpu().to_vector<float>(), (std::vector<float>{0, 1, 2, 0, 3, 4}));
  Tensor back = Tensor::empty({2, 3}, DType::f64);
  back.copy_(dst);  // to the CPU, with a cast
  EXPECT_EQ(back.to_vector<double>(), (std::vector<double>{0, 1, 2, 0, 3, 4}));
}

TEST(CoreDevice, MixedDevicesAreOneClearError) {
  Tensor a = Tensor::ones({2, 3});
  Tensor b = Tensor::ones({2, 3}, DType::f32, kStrict);
  std::string msg = error_of([&] { ops::add(a, b); });
  EXPECT_THAT(msg, AllOf(HasSubstr("different devices"), HasSubstr("cpu"), HasSubstr("strict:0"),
                         HasSubstr("float32[2, 3]"), HasSubstr("ops::binary"), HasSubstr(".to(")));
  msg = error_of([&] { ops::matmul(b, Tensor::ones({3, 2})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("ops::matmul"), HasSubstr("cpu"), HasSubstr("strict:0")));
  msg = error_of([&] { ops::index_select(b, 0, Tensor::zeros({1}, DType::i64)); });
  EXPECT_THAT(msg, AllOf(HasSubstr("cpu"), HasSubstr("strict:0")));
  // Two strict devices are different devices too.
  msg = error_of([&] { ops::mul(b, Tensor::ones({2, 3}, DType::f32, Device::strict(1))); });
  EXPECT_THAT(msg, AllOf(HasSubstr("strict:0"), HasSubstr("strict:1")));
}

TEST(CoreDevice, EachStrictDeviceHasItsOwnAllocator) {
  Allocator& cpu = allocator_for(Device::cpu);
  Allocator& s0 = allocator_for(Device::strict(0));
  Allocator& s1 = allocator_for(Device::strict(1));
  EXPECT_EQ(&cpu, &CpuAllocator::instance());
  EXPECT_NE(&s0, &cpu);
  EXPECT_NE(&s0, &s1);
  EXPECT_EQ(s0.device(), Device::strict(0));
  const int64_t cpu_before = cpu.stats().in_use_bytes, s0_before = s0.stats().in_use_bytes;
  {
    Tensor t = Tensor::empty({1 << 16}, DType::f32, Device::strict(0));
    EXPECT_EQ(s0.stats().in_use_bytes, s0_before + (1 << 18));
    EXPECT_EQ(cpu.stats().in_use_bytes, cpu_before);
  }
  EXPECT_EQ(s0.stats().in_use_bytes, s0_before);
  // Freed blocks are reused, as on the CPU.
  { Tensor warm = Tensor::empty({1000}, DType::f32, Device::strict(0)); }
  const int64_t os = s0.stats().os_allocations;
  for (int i = 0; i < 20; ++i) Tensor t = Tensor::zeros({1000}, DType::f32, Device::strict(0));
  EXPECT_EQ(s0.stats().os_allocations, os);
}

// A kernel of the CUDA table without a CUDA version yet throws naming itself before it touches its
// arguments (here CPU tensors, so no GPU is needed); a build without CUDA has no CUDA table at all.
// Every kernel of the list has a CUDA version (core/cuda/kernel_table.cpp; tests/core/test_cuda_kernels.cpp
// checks each against the CPU's where a GPU is present); a build without CUDA says so, and a machine
// without a GPU refuses CUDA tensors naming the device.
TEST(CoreDevice, CudaIsAClearErrorWithoutTheBuildOrTheGpu) {
#ifdef LINTRA_WITH_CUDA
  EXPECT_NO_THROW(kernels::on(Device::cuda(0)));
#else
  EXPECT_HAS(error_of([] { kernels::on(Device::cuda(0)); }), "built without CUDA");
#endif
  if (!cuda_available()) {
    EXPECT_EQ(cuda_device_count(), 0);
    EXPECT_HAS(error_of([] { Tensor::empty({2}, DType::f32, Device::cuda(0)); }), "cuda:0");
  }
}

}  // namespace
}  // namespace lintra
