// test_mpi.cpp — the MPI communicator with the ranks mpirun started (CTest runs it under
// `mpirun -np 2`; with one rank every case skips): sums are in rank order and the same bits on every
// rank, for lengths of 0, fewer than the ranks and not a multiple of them (lengths over one MPI piece,
// 2^28 elements, are not tried); max, broadcast and all_gather; bucketed sums equal the element-wise
// sums whatever the bucket size; named sums take the union of the names.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "train/distributed/bucketed_sum.h"
#include "train/distributed/reduce.h"
#include "train/distributed/world.h"

namespace lintra::dist {
namespace {

#define NEED_RANKS()                                                        \
  Communicator& comm = world();                                            \
  if (comm.size() < 2) GTEST_SKIP() << "run under mpirun -np 2 (or more)"

// Rank r's i-th value: magnitudes far apart, so that another order of the additions changes bits.
template <typename T> T value(int r, int64_t i) {
  const T scale = r % 3 == 0 ? T(1e7) : r % 3 == 1 ? T(1e-3) : T(-1e7);
  return scale * T(1 + (i * 7919 + r * 104729) % 1000) / T(997);
}

template <typename T> void expect_rank_order_sums(Communicator& comm, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n)), expected(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[size_t(i)] = value<T>(comm.rank(), i);
    T acc = value<T>(0, i);
    for (int k = 1; k < comm.size(); ++k) acc += value<T>(k, i);
    expected[size_t(i)] = acc;
  }
  comm.sum(std::span<T>(v));
  EXPECT_TRUE(n == 0 || std::memcmp(v.data(), expected.data(), v.size() * sizeof(T)) == 0) << n << " elements";
  const std::string bits(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  for (const std::string& other : comm.all_gather(bits)) EXPECT_TRUE(other == bits) << "a rank got other bits";
}

TEST(TrainDistributedMpi, SumsAreInRankOrderAndTheSameBitsOnEveryRank) {
  NEED_RANKS();
  for (int64_t n : {0, 1, 2, 3, 1000, 100003}) {
    expect_rank_order_sums<float>(comm, n);
    expect_rank_order_sums<double>(comm, n);
  }
  EXPECT_GT(comm.seconds(), 0);
  EXPECT_NE(comm.name().find("MPI"), std::string::npos) << comm.name();
}

TEST(TrainDistributedMpi, MaxBroadcastAndAllGather) {
  NEED_RANKS();
  std::vector<double> m{double(comm.rank()), -double(comm.rank()), comm.rank() == 1 ? 1e300 : 0.0};
  comm.max(std::span<double>(m));
  EXPECT_EQ(m, (std::vector<double>{double(comm.size() - 1), 0.0, 1e300}));
  for (int root : {0, comm.size() - 1}) {
    std::string bytes = comm.rank() == root ? std::string(100000, char('a' + root)) : "stale";
    comm.broadcast(bytes, root);
    EXPECT_EQ(bytes, std::string(100000, char('a' + root)));
  }
  std::string empty = comm.rank() == 0 ? "" : "not empty";
  comm.broadcast(empty, 0);
  EXPECT_EQ(empty, "");
  const std::vector<std::string> all = comm.all_gather(std::string(size_t(comm.rank()), 'x'));
  ASSERT_EQ(all.size(), size_t(comm.size()));
  for (int r = 0; r < comm.size(); ++r) EXPECT_EQ(all[size_t(r)], std::string(size_t(r), 'x'));
}

TEST(TrainDistributedMpi, BucketedSumsEqualTheElementwiseSumsForAnyBucketSize) {
  NEED_RANKS();
  const std::vector<int64_t> sizes{7, 0, 300, 1, 64};
  for (int64_t bucket_bytes : {4, 64, 1000, 1 << 20}) {
    BucketedSum sum(comm, bucket_bytes);
    std::vector<Tensor> tensors;
    for (size_t t = 0; t < sizes.size(); ++t) {
      std::vector<float> v(size_t(sizes[t]));
      for (int64_t i = 0; i < sizes[t]; ++i) v[size_t(i)] = value<float>(comm.rank(), i + 1000 * int64_t(t));
      tensors.push_back(Tensor::from_vector(v, {sizes[t]}));
    }
    sum.sum(tensors);
    for (size_t t = 0; t < sizes.size(); ++t) {
      const std::vector<float> got = tensors[t].to_vector<float>();
      for (int64_t i = 0; i < sizes[t]; ++i) {
        float acc = value<float>(0, i + 1000 * int64_t(t));
        for (int k = 1; k < comm.size(); ++k) acc += value<float>(k, i + 1000 * int64_t(t));
        EXPECT_EQ(got[size_t(i)], acc) << "tensor " << t << " element " << i << ", buckets of " << bucket_bytes;
      }
    }
  }
}

TEST(TrainDistributedMpi, NamedSumsTakeTheUnionOfTheNames) {
  NEED_RANKS();
  std::map<std::string, double> mine{{"count", 1.0 + comm.rank()}};
  if (comm.rank() == 1) mine["edit_distance"] = 5;
  if (comm.rank() == 0) mine["nll_sum"] = 0.5;
  const std::map<std::string, double> total = sum_named(comm, mine);
  const double K = comm.size();
  EXPECT_EQ(total, (std::map<std::string, double>{{"count", K * (K + 1) / 2}, {"edit_distance", 5}, {"nll_sum", 0.5}}));
}

}  // namespace
}  // namespace lintra::dist
