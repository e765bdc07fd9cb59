// mpi_communicator.cpp — Communicator over MPI_COMM_WORLD.
//
// The fixed-order sum. MPI_Allreduce leaves the order of the additions to the library (recursive
// doubling, rings, …, chosen by message size and process count), so its result may differ between
// ranks and between process counts. lintra sums as a reduce-scatter followed by an all-gather, with
// the reduction done here: the buffer is cut into one chunk per rank (chunk_of); MPI_Alltoallv sends
// every rank's copy of chunk c to rank c; rank c adds the K copies in rank order 0, 1, …, K−1; and
// MPI_Allgatherv hands the summed chunks to every rank. That moves the same 2(K−1)/K of the buffer
// per rank as a ring all-reduce and gives every rank the same bits.
#include "train/distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>

#include "core/error.h"

namespace lintra::dist::mpi {

namespace {

// MPI counts and displacements are int: sums go through in pieces of at most this many elements.
constexpr int64_t kPiece = int64_t(1) << 28;

void check(int rc, const char* call, int rank) {
  if (rc == MPI_SUCCESS) return;
  char reason[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, reason, &length);
  throw Error(fmt::format("{} failed on rank {}: {}", call, rank, std::string(reason, size_t(length))));
}

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// Adds the wall time of its scope to a communicator's seconds.
class Timed {
 public:
  explicit Timed(double& total) : total_(total) {}
  ~Timed() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

std::string library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, size_t(length));
  return v.substr(0, v.find_first_of(",\n"));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    name_ = "MPI (" + library_version() + ")";
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return name_; }

  void sum(std::span<float> values) override { fixed_order_sum(values, scratch_f32_); }
  void sum(std::span<double> values) override { fixed_order_sum(values, scratch_f64_); }

  void max(std::span<double> values) override {
    Timed timed(seconds_);
    LINTRA_CHECK(values.size() <= size_t(INT_MAX), "MPI max: {} values are too many for one call", values.size());
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce (max)", rank_);
  }

  void broadcast(std::string& bytes, int root) override;
  std::vector<std::string> all_gather(const std::string& bytes) override;

 private:
  template <typename T> void fixed_order_sum(std::span<T> values, std::vector<T>& scratch) {
    if (size_ == 1) return;
    Timed timed(seconds_);
    for (size_t start = 0; start < values.size(); start += size_t(kPiece))
      sum_piece(values.subspan(start, std::min(values.size() - start, size_t(kPiece))), scratch);
  }
  template <typename T> void sum_piece(std::span<T> values, std::vector<T>& scratch);

  int rank_ = 0, size_ = 1;
  std::string name_;
  std::vector<float> scratch_f32_;
  std::vector<double> scratch_f64_;
};

// Reduce-scatter by owner (the K copies of this rank's chunk, added in rank order), then all-gather.
template <typename T> void MpiCommunicator::sum_piece(std::span<T> values, std::vector<T>& scratch) {
  const int64_t n = int64_t(values.size());
  const Chunk mine = chunk_of(n, size_, rank_);
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_)), mine_counts(static_cast<size_t>(size_)), mine_displs(static_cast<size_t>(size_));
  for (int c = 0; c < size_; ++c) {
    const Chunk chunk = chunk_of(n, size_, c);
    counts[size_t(c)] = int(chunk.size());
    displs[size_t(c)] = int(chunk.begin);
    mine_counts[size_t(c)] = int(mine.size());
    mine_displs[size_t(c)] = int(int64_t(c) * mine.size());
  }
  scratch.resize(size_t(int64_t(size_) * mine.size()));
  check(MPI_Alltoallv(values.data(), counts.data(), displs.data(), mpi_type<T>(), scratch.data(), mine_counts.data(),
                      mine_displs.data(), mpi_type<T>(), MPI_COMM_WORLD),
        "MPI_Alltoallv (sum)", rank_);
  T* out = values.data() + mine.begin;
  const int64_t m = mine.size();
  std::copy(scratch.begin(), scratch.begin() + m, out);
  for (int k = 1; k < size_; ++k) {
    const T* copy = scratch.data() + int64_t(k) * m;
    for (int64_t i = 0; i < m; ++i) out[i] += copy[i];  // ((v0 + v1) + v2) + …: rank order
  }
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, values.data(), counts.data(), displs.data(), mpi_type<T>(),
                       MPI_COMM_WORLD),
        "MPI_Allgatherv (sum)", rank_);
}

void MpiCommunicator::broadcast(std::string& bytes, int root) {
  Timed timed(seconds_);
  int64_t n = int64_t(bytes.size());
  check(MPI_Bcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD), "MPI_Bcast (size)", rank_);
  bytes.resize(size_t(n));
  for (int64_t start = 0; start < n; start += kPiece) {
    const int count = int(std::min(n - start, kPiece));
    check(MPI_Bcast(bytes.data() + start, count, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast", rank_);
  }
}

std::vector<std::string> MpiCommunicator::all_gather(const std::string& bytes) {
  Timed timed(seconds_);
  int64_t mine = int64_t(bytes.size());
  std::vector<int64_t> sizes(static_cast<size_t>(size_));
  check(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD), "MPI_Allgather (sizes)",
        rank_);
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  int64_t total = 0;
  for (int r = 0; r < size_; ++r) {
    LINTRA_CHECK(total + sizes[size_t(r)] <= INT_MAX, "MPI all_gather: {} bytes in all are too many for one call",
                 total + sizes[size_t(r)]);
    counts[size_t(r)] = int(sizes[size_t(r)]);
    displs[size_t(r)] = int(total);
    total += sizes[size_t(r)];
  }
  std::string all(size_t(total), '\0');
  check(MPI_Allgatherv(bytes.data(), int(mine), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv", rank_);
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r) out.push_back(all.substr(size_t(displs[size_t(r)]), size_t(counts[size_t(r)])));
  return out;
}

}  // namespace

std::unique_ptr<Communicator> init_world() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // fails fatally, with MPI's message
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return std::make_unique<MpiCommunicator>();
}

void finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

void abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);  // MPI_Abort does not return; in case a library's does
}

}  // namespace lintra::dist::mpi
