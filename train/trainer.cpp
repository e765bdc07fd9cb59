#include "train/trainer.h"

#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "autograd/functional.h"
#include "core/ops.h"
#include "core/threading.h"
#include "data/files/digest.h"
#include "train/checkpoint_exchange.h"
#include "train/distributed/bytes.h"
#include "train/distributed/reduce.h"
#include "train/distributed/world.h"
#include "train/model_size.h"
#include "train/ranks.h"
#include "train/stop_signal.h"

namespace lintra::train {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The first parameter whose gradient is not finite, or "".
std::string first_nonfinite_grad(const std::vector<NamedParam>& params) {
  for (const auto& p : params)
    if (p.var.grad().defined() && !ops::all_finite(p.var.grad())) return p.name;
  return {};
}

// A stored config is re-resolved against today's schema before it is compared.
std::string resolve_stored(const std::string& stored, const std::string& path) {
  return to_yaml(validate_section(parse_config(stored, path), experiment_schema()));
}

// The longest item of a data set (tokens, pixels or frames): the sequence the memory estimate uses.
int64_t longest_item(const data::Dataset& d) {
  int64_t n = 0;
  for (int64_t i = 0; i < d.size(); ++i) n = std::max(n, d.length(i));
  return n;
}

data::LoaderOptions training_loader_options(const Config& cfg, const dist::Communicator& comm) {
  data::LoaderOptions lo;
  lo.rank = comm.rank();
  lo.world_size = comm.size();
  lo.batch_size = cfg.get_int("data.batch_size");
  lo.seed = uint64_t(cfg.get_int("seed"));
  lo.shuffle = true;
  lo.drop_last = true;
  lo.prefetch = cfg.get_int("data.prefetch");
  lo.bucket_by_length = cfg.get_bool("data.bucket_by_length");
  return lo;
}

// The names of a set of metrics (a loop: clang 14's ranges do not read libstdc++'s std::views::keys).
std::vector<std::string> metric_names(const std::map<std::string, double>& m) {
  std::vector<std::string> names;
  for (const auto& [name, value] : m) names.push_back(name);
  return names;
}

int set_threads(const Config& cfg) {
  set_num_threads(int(cfg.get_int("threads")));
  return num_threads();
}

}  // namespace

// --- set-up ----------------------------------------------------------------------------------------

Trainer::Trainer(Config cfg, const TrainCommand& cmd, dist::Communicator& comm)
    : comm_(comm),
      cfg_(std::move(cfg)),
      yaml_(to_yaml(cfg_)),
      options_(train_options(cfg_)),
      threads_(set_threads(cfg_)),
      schedule_(schedule_options(cfg_)),
      device_(experiment_device(cfg_)) {
  if (cmd.run_dir.empty()) check_experiment_name(cfg_);
  if (apply_matmul_precision(cfg_) == MatmulPrecision::bf16)
    say("matmul precision: bf16 operands, float32 sums (oneDNN; core/matmul_precision.h)");
  // Rank 0 alone opens the run directory (the others never touch it).
  const std::string dir =
      !root() ? "" : cmd.run_dir.empty() ? default_run_dir(cfg_.get_string("experiment")) : cmd.run_dir;
  const bool resuming = root() && RunDir::holds_run(dir);
  if (resuming) open_run_dir(dir, cmd);  // an existing run: its lock at once
  logged([&] { build_data_and_model(); });
  if (root() && !resuming) open_run_dir(dir, cmd);  // a new run: only once the config, data and model are good
  logged([&] {
    set_up_training();
    meet_ranks();
    resume();
  });
}

template <typename F>
auto Trainer::logged(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (run_dir_) run_dir_->log_quietly(fmt::format("error: {}", e.what()));
    throw;
  }
}

void Trainer::say(const std::string& line) {
  if (!root()) return;
  if (run_dir_) return run_dir_->log(line);
  std::fprintf(stderr, "%s\n", line.c_str());
  early_lines_.push_back(line);
}

void Trainer::open_run_dir(const std::string& dir, const TrainCommand& cmd) {
  run_dir_.emplace(dir, yaml_, cmd.overrides, resolve_stored);
  const std::string ranks = comm_.size() > 1 ? fmt::format("{} ranks × ", comm_.size()) : "";
  run_dir_->log(fmt::format("lintra {} train: run directory {}{} ({}{} threads)", LINTRA_VERSION, run_dir_->path(),
                            run_dir_->existed() ? " (resuming)" : "", ranks, threads_));
  for (const std::string& line : early_lines_) run_dir_->log_quietly(line);
  early_lines_.clear();
}

// The data, then the model once its estimated size fits in memory (printed before it is allocated).
void Trainer::build_data_and_model() {
  data_ = build_data(cfg_);
  say(fmt::format("data: train {} ({} samples, digest {}), eval {} ({} samples, digest {})", data_.train->name(),
                  data_.train->size(), data::digest_hex(data_.train->content_digest()), data_.eval->name(),
                  data_.eval->size(), data::digest_hex(data_.eval->content_digest())));
  const ModelSize size = estimate_model_size(cfg_, longest_item(*data_.train));
  const double available = available_memory_bytes();
  say(fmt::format("model: {}; {} available", size.describe(), human_bytes(available)));
  check_fits_in_memory(cfg_, size, available);
  model_ = build_model(cfg_);
  model_->to(device_);
  say(fmt::format("model: {} parameters on {}\n{}", model_->num_parameters(), device_, model_->describe()));
}

void Trainer::set_up_training() {
  if (root()) checkpoints_.emplace(run_dir_->checkpoints(), options_.keep_last, options_.keep_every);
  for (const auto& [name, v] : model_->named_parameters()) params_.push_back({name, v});
  optimizer_ = make_optimizer(params_, optimizer_options(cfg_));
  loader_ = std::make_unique<data::DataLoader>(*data_.train, training_loader_options(cfg_, comm_));
  if (comm_.size() > 1) {
    auto all_reduce = std::make_unique<AllReduceAverager>(comm_, device_);
    say("gradients: " + all_reduce->how());
    averager_ = std::move(all_reduce);
  } else {
    averager_ = std::make_unique<SingleProcessAverager>();
  }
  best_metric_ = options_.best_metric.empty() ? model_->primary_metric() : options_.best_metric;
  const std::string monitor = schedule_options(cfg_).monitor;
  monitored_metric_ = monitor.empty() ? best_metric_ : monitor;
}

// Every rank says who it is and what it trains (the same config, data and model everywhere).
void Trainer::meet_ranks() {
  if (comm_.size() == 1) return;
  const std::string trains =
      fmt::format("config {}, train data {}, eval data {}, model of {} parameters", config_digest_hex(cfg_),
                  data::digest_hex(data_.train->content_digest()), data::digest_hex(data_.eval->content_digest()),
                  model_->num_parameters());
  const std::vector<RankInfo> ranks = train::meet_ranks(comm_, this_rank(threads_, trains));
  log(describe_ranks(comm_, ranks));
}

// The newest complete checkpoint (read by rank 0, sent to every rank), and metrics.jsonl cut back to
// it (what came after is done again). A new run gives each rank its own random streams.
void Trainer::resume() {
  std::optional<CheckpointData> latest;
  std::string path;
  if (root()) {
    auto loaded = checkpoints_->load_latest([&](const std::string& m) { run_dir_->log(m); });
    if (loaded) latest = std::move(loaded->data), path = loaded->path;
  }
  latest = share_checkpoint(comm_, std::move(latest));
  if (latest) {
    const std::string reshard = restore_checkpoint(*latest, *model_, *optimizer_, schedule_, *loader_, state_);
    log(fmt::format("resumed from {} at step {}", path, state_.step));
    if (!reshard.empty()) log(reshard);
  } else {
    use_rank_streams(*model_, comm_.rank());
  }
  check_replicas(comm_, params_, state_.step);
  if (root()) run_dir_->resume_metrics_at(state_.step);
}

void Trainer::log(const std::string& line) {
  if (root()) run_dir_->log(line);
}

// --- one update ------------------------------------------------------------------------------------

// The device seam: batches come from the loader on the CPU and go where the model lives (device_).
nn::ModelBatch Trainer::to_device(const data::Batch& batch) const { return to_model_batch(batch).to(device_); }

Trainer::Update Trainer::update() {
  optimizer_->set_lr(schedule_.lr_at(state_.step));
  optimizer_->zero_grad();
  double loss_sum = 0;
  for (int64_t a = 0; a < options_.grad_accum; ++a) {
    data::Batch batch = loader_->next();
    nn::ModelOutput out = model_->loss(to_device(batch));
    const double weight = weigh_loss(out, loss_sum);
    if (weight != 0) (weight == 1 ? out.loss : mul(out.loss, weight)).backward();
    nn::accumulate_sums(window_sums_, out.sums);
    window_items_ += batch.size();
  }
  averager_->average(params_);
  Update u;
  u.loss = loss_sum / double(options_.grad_accum);
  if (skip_nonfinite(u.loss)) {
    u.skipped = true;
    return u;
  }
  u.grad_norm = options_.global_clip > 0 ? clip_global_grad_norm_(params_, options_.global_clip)
                                         : global_grad_norm(params_);
  optimizer_->step();
  ++state_.step;
  state_.loss_history.push_back(u.loss);
  return u;
}

// The factor of this batch's mean loss in the update's backward, and the global batch's mean loss
// added to loss_sum. One process: 1 / grad_accum. K ranks: the counts and loss sums are summed over the
// ranks first, and this rank's share n / Σ n of the items counted makes the sum of the ranks'
// gradients the gradient of the global mean (gradient_averager.h); a rank that counted nothing adds
// nothing (its mean over no items is not a number).
double Trainer::weigh_loss(const nn::ModelOutput& out, double& loss_sum) {
  const double accum = double(options_.grad_accum);
  if (comm_.size() == 1) {
    loss_sum += nn::host_scalar(out.loss.data());
    return 1.0 / accum;
  }
  const auto count = out.sums.find("count");
  LINTRA_CHECK(count != out.sums.end(),
               "train: data-parallel training weighs each rank's loss by the items it counted (the sum \"count\"), "
               "and this model's loss gives no such sum");
  const double n = count->second;
  std::array<double, 2> totals{n, n > 0 ? n * nn::host_scalar(out.loss.data()) : 0.0};
  comm_.sum(totals);
  loss_sum += totals[1] / totals[0];
  return n > 0 ? n / totals[0] / accum : 0.0;
}

// train.nan_policy: a non-finite loss or gradient is an error, or (skip) drops the update, up to
// train.max_nan_skips in a row. Returns true when the update is dropped.
bool Trainer::skip_nonfinite(double loss) {
  const std::string bad = std::isfinite(loss) ? first_nonfinite_grad(params_) : "loss";
  if (bad.empty()) {
    state_.nan_skips = 0;
    return false;
  }
  const std::string what = bad == "loss" ? "the loss" : "the gradient of " + bad;
  LINTRA_CHECK(options_.nan_policy == "skip", "train: {} is not finite at step {} (train.nan_policy: error)", what,
               state_.step + 1);
  ++state_.nan_skips;
  log(fmt::format("step {}: {} is not finite; update skipped ({} in a row)", state_.step + 1, what,
                           state_.nan_skips));
  LINTRA_CHECK(state_.nan_skips <= options_.max_nan_skips,
               "train: {} consecutive non-finite updates (train.max_nan_skips: {})", state_.nan_skips,
               options_.max_nan_skips);
  optimizer_->zero_grad();
  return true;
}

// --- logging ---------------------------------------------------------------------------------------

// Collective: the model's metrics over the window's batches of every rank, and its items per second.
std::map<std::string, double> Trainer::window_metrics() {
  const double dt = seconds_since(window_start_);
  std::array<double, 1> items{double(window_items_)};
  comm_.sum(items);
  std::map<std::string, double> m = model_->summarize(dist::sum_named(comm_, window_sums_));
  m["items_per_s"] = dt > 0 ? items[0] / dt : 0;
  window_sums_.clear();
  window_items_ = 0;
  window_start_ = std::chrono::steady_clock::now();
  return m;
}

// One metrics.jsonl training line over the updates since the last one, and the progress line.
void Trainer::log_window(const Update& u) {
  std::map<std::string, double> m = window_metrics();
  if (!root()) return;
  m["step"] = double(state_.step);
  m["epoch"] = double(loader_->position().epoch);
  m["lr"] = optimizer_->lr();
  m["grad_norm"] = u.grad_norm;
  m["wall_time"] = wall_time();
  m["train_seconds"] = state_.train_seconds;
  if (comm_.size() > 1) m["comm_seconds"] = comm_seconds_;
  run_dir_->metrics("train", m);
  const double rate = m["items_per_s"];
  const double items_per_update = double(cfg_.get_int("data.batch_size") * options_.grad_accum * comm_.size());
  double remaining = rate > 0 ? double(options_.steps - state_.step) * items_per_update / rate : 0;
  if (options_.time_budget > 0) remaining = std::min(remaining, std::max(0.0, options_.time_budget - state_.train_seconds));
  const std::string line = fmt::format("step {}/{}  loss {:.4f}  {:.1f} {}/s  lr {:.2e}  ETA {:.0f}s", state_.step,
                                       options_.steps, m.count("loss") ? m["loss"] : u.loss, rate, model_->item_name(),
                                       optimizer_->lr(), remaining);
  const bool last = finished();
  if (isatty(STDERR_FILENO)) {
    std::fprintf(stderr, "\r%-100s", line.c_str());
    if (last) std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// --- evaluation ------------------------------------------------------------------------------------

// Periodic evaluations read train.eval_batches batches; the final one (final) the whole eval split.
// Every rank gets the same metrics (evaluate_model reduces them), so every rank's schedule and best agree.
bool Trainer::evaluate(bool final) {
  const Evaluation e =
      evaluate_model(*model_, *data_.eval, eval_batch_size(cfg_), final ? 0 : options_.eval_batches, comm_);
  std::map<std::string, double> m = e.metrics;
  LINTRA_CHECK(schedule_.name() != "plateau" || m.count(monitored_metric_),
               "schedule.monitor: the evaluation gives no metric '{}' (it gives: {})", monitored_metric_,
               fmt::join(metric_names(m), ", "));
  if (auto it = m.find(monitored_metric_); it != m.end()) schedule_.observe(it->second);
  bool is_best = false;
  if (auto it = m.find(best_metric_); it != m.end() && it->second < state_.best) {
    state_.best = it->second;
    is_best = true;
  }
  if (!root()) return is_best;
  m["step"] = double(state_.step);
  m["epoch"] = double(loader_->position().epoch);
  m["wall_time"] = wall_time();
  m["train_seconds"] = state_.train_seconds;
  m["eval_batches"] = double(e.batches);
  run_dir_->metrics("eval", m);
  std::string summary;
  for (const auto& [k, v] : m)
    if (k != "step" && k != "epoch" && k != "wall_time" && k != "train_seconds" && k != "eval_batches")
      summary += fmt::format("  {} {:.4f}", k, v);
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
  run_dir_->log(fmt::format("eval at step {}:{}", state_.step, summary));
  return is_best;
}

// --- save ------------------------------------------------------------------------------------------

// Collective: every rank's generators and loader position go to rank 0, which writes the checkpoint
// (the others return ""). The replicas are checked to be the same first.
std::string Trainer::save(bool best) {
  state_.wall_time = wall_time();
  std::vector<RankState> ranks =
      gather_rank_states(comm_, rank_state(*model_, *loader_, uint64_t(cfg_.get_int("seed"))));
  check_replicas(comm_, params_, state_.step);
  if (!root()) return {};
  CheckpointData c = collect_checkpoint(*model_, *optimizer_, schedule_, state_, yaml_, std::move(ranks));
  std::string path = checkpoints_->save(state_.step, c);
  if (best) checkpoints_->save_best(c);
  return path;
}

double Trainer::wall_time() const { return wall_before_ + seconds_since(start_); }

// --- the loop --------------------------------------------------------------------------------------

bool Trainer::budget_spent() const { return options_.time_budget > 0 && state_.train_seconds >= options_.time_budget; }

bool Trainer::finished() const { return state_.step >= options_.steps || budget_spent(); }

// Collective: true on every rank when a signal reached any rank.
bool Trainer::agree_to_stop(bool requested) {
  std::array<double, 1> flag{requested ? 1.0 : 0.0};
  comm_.max(flag);
  return flag[0] > 0;
}

// Collective: the seconds of training so far become the slowest rank's (what train.time_budget counts).
void Trainer::agree_on_seconds(double update_seconds) {
  std::array<double, 1> seconds{state_.train_seconds + update_seconds};
  comm_.max(seconds);
  state_.train_seconds = seconds[0];
}

int Trainer::run() {
  return logged([&] { return loop(); });
}

int Trainer::loop() {
  StopSignal stop;
  start_ = window_start_ = std::chrono::steady_clock::now();
  wall_before_ = state_.wall_time;
  auto every = [&](int64_t n) { return n > 0 && state_.step % n == 0; };
  while (!finished()) {
    if (agree_to_stop(stop.stop_requested())) {
      const std::string path = save(false);
      log(fmt::format("stopped by a signal at step {}; checkpoint {} written. Run the same command to resume.",
                      state_.step, path));
      return 130;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const double comm0 = comm_.seconds();
    const Update u = update();
    agree_on_seconds(seconds_since(t0));
    comm_seconds_ += comm_.seconds() - comm0;
    update_seconds_ += seconds_since(t0);
    if (u.skipped) {
      if (finished()) save(false);  // the budget ran out on a skipped update: keep what was trained
      continue;
    }
    const bool last = finished();
    if (every(options_.log_every) || last) log_window(u);
    const bool is_best = (every(options_.eval_every) || last) && evaluate(last);
    if (every(options_.checkpoint_every) || last || is_best) save(is_best);
  }
  log_end();
  return 0;
}

// Collective (each rank's share of communication); rank 0 writes the lines.
void Trainer::log_end() {
  const std::string comm = communication_summary();
  if (!root()) return;
  if (state_.step < options_.steps) {
    run_dir_->log(fmt::format("time budget reached: {:.1f}s of training (train.time_budget {:g}) at step {} of {}; "
                              "raise train.time_budget (or set it to 0) and run again to continue",
                              state_.train_seconds, options_.time_budget, state_.step, options_.steps));
  }
  run_dir_->log(fmt::format("finished {} steps in {:.1f}s (this process: {:.1f}s; {:.1f}s of training in all)",
                            state_.step, wall_time(), seconds_since(start_), state_.train_seconds));
  if (!comm.empty()) run_dir_->log(comm);
}

// "communication in this process's updates: rank 0 1.2 s of 30.1 s (4.0%), rank 1 …" (K > 1), else "".
std::string Trainer::communication_summary() {
  if (comm_.size() == 1) return {};
  dist::ByteWriter w;
  w.put(comm_seconds_).put(update_seconds_);
  std::string out = "communication in this process's updates (inside MPI calls, waiting for the slower rank included):";
  const std::vector<std::string> all = comm_.all_gather(w.bytes());
  for (size_t r = 0; r < all.size(); ++r) {
    dist::ByteReader rd(all[r], "a rank's communication seconds");
    const double c = rd.get<double>(), total = rd.get<double>();
    out += fmt::format("{} rank {} {:.2f}s of {:.2f}s ({:.1f}%)", r ? "," : "", r, c, total, total > 0 ? 100 * c / total : 0);
  }
  return out;
}

int run_train(const TrainCommand& cmd) {
  LINTRA_CHECK(!cmd.configs.empty(), "train: give at least one config file (e.g. configs/copy/cpu/softmax.yaml)");
  Config cfg = load_experiment_config(cmd.configs, cmd.overrides);
  if (cmd.print_config) {
    fmt::print("{}", to_yaml(cfg));
    return 0;
  }
  Trainer trainer(std::move(cfg), cmd, dist::world());
  return trainer.run();
}

}  // namespace lintra::train
