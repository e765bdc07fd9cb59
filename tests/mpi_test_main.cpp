// mpi_test_main.cpp — main() of the tests CTest runs under mpirun (lintra_mpi_test in
// tests/CMakeLists.txt): every rank runs every test, so each test makes the same collective calls on
// every rank (checks that could stop one rank early — ASSERT — come only after the last collective).
// MPI is initialised by dist::world() before the tests and finalised after. Rank 0 prints GoogleTest's
// report; the other ranks print only their failures, with their rank. A failure on any rank fails
// every rank's exit status.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "train/distributed/world.h"

namespace {

class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                 r.message());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  lintra::dist::Communicator& world = lintra::dist::world();
  if (world.rank() != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(world.rank()));
  }
  const int status = RUN_ALL_TESTS();
  std::array<double, 1> failed{status != 0 ? 1.0 : 0.0};
  world.max(failed);
  lintra::dist::finalize();
  return failed[0] > 0 ? 1 : 0;
}
