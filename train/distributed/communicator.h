// communicator.h — the processes ("ranks") that train one model together, and what they say to
// each other: the collectives data-parallel training needs (DESIGN.md §10), nothing more.
//
// Every call is collective: every rank makes the same calls in the same order, with the same sizes
// (the trainer's decisions are made from values every rank has, so they are). Only the thread that
// created the communicator calls it.
//
// Sums are in a fixed order and give the same bits on every rank: element i of the result is
// ((v_0[i] + v_1[i]) + v_2[i]) + … + v_{K−1}[i], whatever the MPI library's own reduction algorithms
// would do (mpi_communicator.cpp says how). Replicas that must stay identical (the model's
// parameters after each update) therefore do.
//
// Implementations: SingleProcess (one rank; every call is the identity and costs nothing), and
// MpiCommunicator (mpi_communicator.h, built when CMake finds MPI). world.h picks one for the process.
// Errors are lintra::Error naming the call and the rank.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lintra::dist {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string name() const = 0;  // "one process", "MPI (Open MPI v4.1.4)"

  // In place: every element becomes its sum over the ranks, in rank order (see above).
  virtual void sum(std::span<float> values) = 0;
  virtual void sum(std::span<double> values) = 0;
  // In place: every element becomes its maximum over the ranks.
  virtual void max(std::span<double> values) = 0;
  // `bytes` of rank `root` on every rank.
  virtual void broadcast(std::string& bytes, int root = 0) = 0;
  // Every rank's `bytes`, indexed by rank, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& bytes) = 0;

  // Wall seconds spent inside the calls above so far (waiting for slower ranks included).
  double seconds() const { return seconds_; }
  bool is_root() const { return rank() == 0; }

 protected:
  double seconds_ = 0;
};

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "one process"; }
  void sum(std::span<float>) override {}
  void sum(std::span<double>) override {}
  void max(std::span<double>) override {}
  void broadcast(std::string&, int) override {}
  std::vector<std::string> all_gather(const std::string& bytes) override { return {bytes}; }
};

// A process-wide SingleProcess (the default of functions that may run on several ranks).
Communicator& single_process();

// The part of n elements that rank r of k owns in a fixed-order sum: [begin, end), balanced (sizes
// differ by at most one), in rank order, covering [0, n) exactly once.
struct Chunk {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};
Chunk chunk_of(int64_t n, int k, int r);

}  // namespace lintra::dist
