// experiments/kernels/gemv_team.cpp — what bounds batch-1 generation on two threads: the weights'
// stream or the team's barriers? The recurrent engine (nn/models/image_recurrent_engine.cpp, Note
// [four barriers a layer]) splits every product of a token by rows between the threads and meets at a
// SpinBarrier after each. This lab runs the token's products of the paper's 8-layer MNIST model
// (simd::gemv_packed, the QKV, out and feed-forward products, 25.2 MB of float32 weights) the way the
// engine does, on one thread, on a team with a barrier after every product (split evenly, as the
// engine, by TeamSplit, following the members' measured rates, or with rows claimed on demand: all of
// them, or the last quarter; CLAIM_ROWS a claim, default 32), and on a team without barriers
// (the stream alone: no output is right, only the rate counts), the schedules interleaved round by
// round, and reports the best and the mean seconds per token and the weight bytes per second.
//
// Run: build/experiments/kernels/gemv_team [TARGET [CLAIM_ROWS]] under the machine lock (OMP_NUM_THREADS=2,
// GOMP_SPINCOUNT=1000 as lintra's main sets it).
#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <numeric>
#include <memory>
#include <vector>

#include "core/host_simd.h"
#include "core/rng.h"
#include "core/simd.h"
#include "core/spin_barrier.h"
#include "core/tensor.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Product {
  int64_t rows, in;
};
const std::vector<Product> kLayer = {{768, 256}, {256, 256}, {1024, 256}, {256, 1024}};
constexpr int kLayers = 8;

struct Model {
  std::vector<lintra::simd::PackedRows> w;
  std::vector<std::vector<float>> bias;
  double bytes = 0;
};

Model make_model(bool bf16) {
  lintra::Generator gen(5);
  Model m;
  for (int l = 0; l < kLayers; ++l)
    for (const Product& p : kLayer) {
      const std::vector<float> f = lintra::Tensor::uniform({p.rows * p.in}, gen, -0.05, 0.05).to_vector<float>();
      m.w.push_back(bf16 ? lintra::simd::pack_rows_bf16(f.data(), p.rows, p.in)
                         : lintra::simd::pack_rows_f32(f.data(), p.rows, p.in));
      m.bias.emplace_back(size_t(p.rows), 0.0f);
      m.bytes += double(p.rows * p.in) * (bf16 ? 2 : 4);
    }
  return m;
}

// TeamSplit: an uneven split that follows the members' measured rates (tried in session 25 against the
// engine's even split, which it did not beat: the kernels README). Thread i gets the share s_i of every
// product's rows; after each token r_i = work_i / seconds_i, s_i ← (1 − α)·s_i + α·r_i / Σ_j r_j, each
// share at least a quarter of an even one, and thread i's rows of an R-row product are
// [b_i, b_{i+1}), b_i = R·(s_0 + … + s_{i−1}) rounded to 16 rows.
class TeamSplit {
 public:
  static constexpr int64_t kAlign = 16;
  static constexpr double kRate = 0.3;       // α: how far one step moves the shares toward its rates
  static constexpr double kMinShare = 0.25;  // of an even share

  explicit TeamSplit(int threads) : share_(size_t(threads), 1.0 / threads), work_(size_t(threads)), seconds_(size_t(threads)) {}

  int threads() const { return int(share_.size()); }
  double share(int tid) const { return share_[size_t(tid)]; }

  // Rows [r0, r1) of a `rows`-row product for thread tid.
  std::pair<int64_t, int64_t> block(int64_t rows, int tid) const { return {bound(rows, tid), bound(rows, tid + 1)}; }

  // Thread tid's products this step: `work` units (multiply-adds) in `seconds`. Each thread writes only
  // its own entry, so members may record at once.
  void record(int tid, double work, double seconds) {
    work_[size_t(tid)] = work;
    seconds_[size_t(tid)] = seconds;
  }

  // Between steps, on one thread: the shares move toward the recorded rates. A step where some member
  // recorded no work or no time (a step run by one thread) leaves them as they are.
  void update() {
    const size_t n = share_.size();
    std::vector<double> rate(n);
    for (size_t i = 0; i < n; ++i) {
      if (!(work_[i] > 0 && seconds_[i] > 0)) return clear();
      rate[i] = work_[i] / seconds_[i];
    }
    const double total = std::accumulate(rate.begin(), rate.end(), 0.0);
    const double floor = kMinShare / double(n);
    for (size_t i = 0; i < n; ++i) share_[i] = std::max(floor, (1 - kRate) * share_[i] + kRate * rate[i] / total);
    const double sum = std::accumulate(share_.begin(), share_.end(), 0.0);
    for (double& s : share_) s /= sum;
    clear();
  }

 private:
  int64_t bound(int64_t rows, int k) const {
    if (k <= 0) return 0;
    if (k >= threads()) return rows;
    const double before = std::accumulate(share_.begin(), share_.begin() + k, 0.0);
    const auto aligned = int64_t(double(rows) * before / double(kAlign) + 0.5) * kAlign;
    return std::clamp<int64_t>(aligned, 0, rows);
  }
  void clear() {
    std::fill(work_.begin(), work_.end(), 0.0);
    std::fill(seconds_.begin(), seconds_.end(), 0.0);
  }

  std::vector<double> share_, work_, seconds_;
};


// Rows [r0, r1) of `rows` for thread tid of n, on 16-row groups (as the engine's block()).
std::pair<int64_t, int64_t> block(int64_t rows, int tid, int n) {
  const int64_t chunk = ((rows + n - 1) / n + 15) / 16 * 16;
  const int64_t r0 = std::min(rows, chunk * tid);
  return {r0, std::min(rows, r0 + chunk)};
}

enum class Mode { one_thread, team_barriers, team_adaptive, team_claimed, team_claimed_tail, team_no_barriers };

// Claimed rows: a product's rows in chunks of claim_rows_per_ticket, taken from one atomic counter per product by
// whichever thread comes first (all of them, or the quarter left after an even split of the first
// three quarters), so that a thread the host holds back computes fewer of them instead of holding the
// other at the barrier. Counters are never reset: every thread ends each product with one claim past
// its last chunk, so a product of C chunks takes C + n tickets a token and token t's chunk is its
// ticket less t·(C + n) (the barrier after each product keeps tokens apart).
int64_t claim_rows_per_ticket = 32;  // rows a claim; the lab's second argument

// One schedule's team state, kept from block to block (TeamSplit learns the members' rates).
struct Schedule {
  Mode mode;
  const char* name;
  int threads;
  lintra::SpinBarrier barrier;
  TeamSplit split;
  std::vector<std::atomic<int64_t>> tickets;
  int64_t tokens = 0;  // run so far
  Schedule(Mode m, const char* label, size_t products)
      : mode(m), name(label), threads(m == Mode::one_thread ? 1 : 2), barrier(threads), split(threads), tickets(products) {}
};

// Rows [r0, r1) of each chunk this thread claims of rows [from, rows) of product i at token t.
template <typename F>
void claim_rows(Schedule& sc, size_t i, int64_t t, int64_t from, int64_t rows, F&& f) {
  const int64_t chunks = (rows - from + claim_rows_per_ticket - 1) / claim_rows_per_ticket, base = t * (chunks + sc.threads);
  for (;;) {
    const int64_t c = sc.tickets[i].fetch_add(1, std::memory_order_relaxed) - base;
    if (c >= chunks) return;
    f(from + c * claim_rows_per_ticket, std::min(rows, from + (c + 1) * claim_rows_per_ticket));
  }
}

// Runs `count` tokens' products on schedule `sc`; returns the seconds taken.
double run_tokens(const Model& m, Schedule& sc, int count) {
  static std::vector<float> x(1024, 0.01f), y(1024 * 2);
  const Mode mode = sc.mode;
  const auto start = Clock::now();
#pragma omp parallel num_threads(sc.threads)
  {
    const int tid = omp_get_thread_num(), n = sc.threads;
    for (int t = 0; t < count; ++t) {
      double work = 0, seconds = 0;
      for (size_t i = 0; i < m.w.size(); ++i) {
        if (mode == Mode::team_adaptive) {
          const auto [r0, r1] = sc.split.block(m.w[i].rows, tid);
          const auto t0 = Clock::now();
          lintra::simd::gemv_packed(m.w[i], m.bias[i].data(), x.data(), y.data(), 1, r0, r1);
          seconds += std::chrono::duration<double>(Clock::now() - t0).count();
          work += double((r1 - r0) * m.w[i].in);
        } else if (mode == Mode::team_claimed || mode == Mode::team_claimed_tail) {
          const int64_t rows = m.w[i].rows, from = mode == Mode::team_claimed ? 0 : rows * 3 / 4 / 16 * 16;
          if (from > 0) {
            const auto [r0, r1] = block(from, tid, n);
            lintra::simd::gemv_packed(m.w[i], m.bias[i].data(), x.data(), y.data(), 1, r0, r1);
          }
          claim_rows(sc, i, sc.tokens + t, from, rows, [&](int64_t r0, int64_t r1) {
            lintra::simd::gemv_packed(m.w[i], m.bias[i].data(), x.data(), y.data(), 1, r0, r1);
          });
        } else {
          const auto [r0, r1] = block(m.w[i].rows, tid, n);
          lintra::simd::gemv_packed(m.w[i], m.bias[i].data(), x.data(), y.data(), 1, r0, r1);
        }
        if (mode != Mode::one_thread && mode != Mode::team_no_barriers) sc.barrier.wait();
      }
      if (mode == Mode::team_adaptive) {  // the engine updates between tokens, outside its region
        sc.split.record(tid, work, seconds);
        sc.barrier.wait();
        if (tid == 0) sc.split.update();
        sc.barrier.wait();
      }
    }
  }
  sc.tokens += count;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) != "-") lintra::force_simd_target(argv[1]);
  if (argc > 2) claim_rows_per_ticket = std::max<int64_t>(16, std::atoll(argv[2]) / 16 * 16);
  constexpr int kRounds = 24, kTokens = 64;
  fmt::print("gemv_team lab — SIMD target {}, the paper's 8-layer MNIST products at batch 1; {} rounds of {} tokens,\n"
             "the schedules interleaved within each round (the host's noise falls on all of them alike)\n",
             lintra::simd_target(), kRounds, kTokens);
  fmt::print("claimed schedules take {} rows a claim\n", claim_rows_per_ticket);
  fmt::print("{:<8} {:<24} {:>10} {:>10} {:>10}\n", "weights", "schedule", "best ms", "mean ms", "GB/s mean");
  for (bool bf16 : {false, true}) {
    const Model m = make_model(bf16);
    std::vector<std::unique_ptr<Schedule>> schedules;
    for (auto [mode, name] : {std::pair{Mode::one_thread, "one thread"}, std::pair{Mode::team_barriers, "2 threads, even split"},
                              std::pair{Mode::team_adaptive, "2 threads, TeamSplit"},
                              std::pair{Mode::team_claimed, "2 threads, rows claimed"},
                              std::pair{Mode::team_claimed_tail, "2 threads, tail claimed"},
                              std::pair{Mode::team_no_barriers, "2 threads, no barriers"}})
      schedules.push_back(std::make_unique<Schedule>(mode, name, m.w.size()));
    std::vector<double> best(schedules.size(), 1e30), total(schedules.size(), 0);
    for (auto& sc : schedules) run_tokens(m, *sc, 8);
    for (int r = 0; r < kRounds; ++r)
      for (size_t i = 0; i < schedules.size(); ++i) {
        const double s = run_tokens(m, *schedules[i], kTokens) / kTokens;
        best[i] = std::min(best[i], s);
        total[i] += s;
      }
    for (size_t i = 0; i < schedules.size(); ++i) {
      const double mean = total[i] / kRounds;
      fmt::print("{:<8} {:<24} {:>10.4f} {:>10.4f} {:>10.1f}\n", bf16 ? "bf16" : "float32", schedules[i]->name,
                 best[i] * 1e3, mean * 1e3, m.bytes / mean / 1e9);
    }
  }
  return 0;
}
