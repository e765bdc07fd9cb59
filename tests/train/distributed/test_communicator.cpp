// test_communicator.cpp — what the collectives rest on, in one process: the chunks of a fixed-order
// sum (balanced, in order, covering everything once), the bytes ranks send each other, and the
// one-process communicator (every call the identity). The collectives over MPI: test_mpi.cpp.
#include <gtest/gtest.h>

#include <map>

#include "tests/test_util.h"
#include "train/distributed/bytes.h"
#include "train/distributed/communicator.h"
#include "train/distributed/reduce.h"

namespace lintra::dist {
namespace {

TEST(TrainDistributedCommunicator, ChunksAreBalancedInRankOrderAndCoverEveryElementOnce) {
  for (int64_t n : {0, 1, 2, 5, 7, 64, 1001}) {
    for (int k : {1, 2, 3, 8}) {
      int64_t next = 0, smallest = n, largest = 0;
      for (int r = 0; r < k; ++r) {
        const Chunk c = chunk_of(n, k, r);
        EXPECT_EQ(c.begin, next) << n << " " << k << " " << r;
        next = c.end;
        smallest = std::min(smallest, c.size());
        largest = std::max(largest, c.size());
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1) << n << " over " << k;
    }
  }
  EXPECT_HAS(testing::error_of([] { chunk_of(4, 2, 2); }), "rank 2 of 2");
}

TEST(TrainDistributedCommunicator, BytesRoundTripAndARunShortReaderThrows) {
  ByteWriter w;
  w.put(int64_t(-3)).put_string("héllo").put(2.5).put_raw("abc", 3).put_string("");
  ByteReader r(w.bytes(), "test bytes");
  EXPECT_EQ(r.get<int64_t>(), -3);
  EXPECT_EQ(r.get_string(), "héllo");
  EXPECT_EQ(r.get<double>(), 2.5);
  char abc[3];
  r.get_raw(abc, 3);
  EXPECT_EQ(std::string(abc, 3), "abc");
  EXPECT_EQ(r.get_string(), "");
  EXPECT_TRUE(r.done());
  EXPECT_HAS(testing::error_of([&] { r.get<int32_t>(); }), "test bytes: 4 bytes wanted, 0 left");
  const std::string cut = w.bytes().substr(0, 10);
  ByteReader short_reader(cut, "cut bytes");
  short_reader.get<int64_t>();
  EXPECT_HAS(testing::error_of([&] { short_reader.get_string(); }), "cut bytes: 8 bytes wanted, 2 left");
  ByteReader wrong(w.bytes(), "raw");
  EXPECT_HAS(testing::error_of([&] { wrong.get_raw(abc, 3); }), "raw: a length of -3");
}

TEST(TrainDistributedCommunicator, OneProcessIsTheIdentity) {
  Communicator& one = single_process();
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  EXPECT_TRUE(one.is_root());
  std::vector<float> f{1.5f, -2};
  std::vector<double> d{3, 4};
  one.sum(std::span<float>(f));
  one.sum(std::span<double>(d));
  one.max(std::span<double>(d));
  EXPECT_EQ(f, (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(d, (std::vector<double>{3, 4}));
  std::string bytes = "x";
  one.broadcast(bytes, 0);
  EXPECT_EQ(bytes, "x");
  EXPECT_EQ(one.all_gather("y"), std::vector<std::string>{"y"});
  const std::map<std::string, double> sums{{"count", 4}, {"nll_sum", 2.5}};
  EXPECT_EQ(sum_named(one, sums), sums);
  EXPECT_EQ(one.seconds(), 0);
}

}  // namespace
}  // namespace lintra::dist
