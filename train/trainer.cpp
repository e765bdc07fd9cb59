#include "train/trainer.h"

#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ranges>

#include "autograd/functional.h"
#include "core/ops.h"
#include "core/threading.h"
#include "data/digest.h"
#include "train/checkpoint.h"
#include "train/experiment_config.h"
#include "train/factories.h"
#include "train/run_dir.h"

namespace lintra::train {

namespace {

// --- signals ------------------------------------------------------------------------------------

std::atomic<int> g_signals{0};

extern "C" void on_stop_signal(int sig) {
  // The first SIGINT/SIGTERM asks for a clean stop at the next update boundary; a second SIGINT
  // aborts at once (async-signal-safe: only _exit).
  if (g_signals.fetch_add(1) >= 1 && sig == SIGINT) _exit(130);
}

class SignalScope {
 public:
  SignalScope() {
    g_signals = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalScope() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool stop_requested() const { return g_signals.load() > 0; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// --- checkpoint state ---------------------------------------------------------------------------

struct LoopState {
  int64_t step = 0;
  double best = INFINITY;
  int64_t nan_skips = 0;
  double wall_time = 0;  // seconds of training before this process
  std::vector<double> loss_history;
};

CheckpointData collect(const nn::Model& model, const Optimizer& opt, const Schedule& sched, const data::DataLoader& loader,
                       const LoopState& st, const std::string& yaml, uint64_t seed) {
  CheckpointData c;
  c.global_step = st.step;
  c.epoch = loader.position().epoch;
  c.config_yaml = yaml;
  for (const auto& [name, v] : model.named_parameters()) c.model.emplace_back(name, v.data());
  c.optimizer_type = opt.type();
  c.optimizer_hparams = opt.hparams();
  c.optimizer_step = opt.step_count();
  for (const auto& [slot, tensors] : opt.state()) c.optimizer_slots[slot] = tensors;
  c.scheduler = sched.state();
  for (const auto& [name, gen] : model.named_generators()) c.rng["model." + name] = gen->state();
  c.data = {loader.position().epoch, loader.position().batch_index, seed};
  c.trainer = {{"best", st.best}, {"nan_skips", double(st.nan_skips)}, {"wall_time", st.wall_time}};
  c.loss_history = st.loss_history;
  return c;
}

void restore(const CheckpointData& c, nn::Model& model, Optimizer& opt, Schedule& sched, data::DataLoader& loader,
             LoopState& st) {
  std::vector<std::pair<std::string, TensorSpec>> expected;
  for (const auto& [name, v] : model.named_parameters()) expected.push_back({name, {v.shape(), v.dtype()}});
  std::vector<std::string> problems = check_against(c, expected);
  for (const auto& [name, gen] : model.named_generators())
    if (!c.rng.count("model." + name)) problems.push_back(fmt::format("{}: generator model.{} is missing", c.source_path, name));
  LINTRA_CHECK(problems.empty(), "{}: the checkpoint does not match the model ({} problems):\n  {}", c.source_path,
               problems.size(), fmt::join(problems, "\n  "));
  std::map<std::string, Tensor> by_name(c.model.begin(), c.model.end());
  for (const auto& [name, v] : model.named_parameters()) {
    Tensor t = v.data();  // a handle on the parameter's storage
    t.copy_(by_name.at(name));
  }
  std::map<std::string, std::vector<std::pair<std::string, Tensor>>> slots(c.optimizer_slots.begin(),
                                                                           c.optimizer_slots.end());
  opt.load_state(c.optimizer_step, slots);
  sched.load_state(c.scheduler);
  for (const auto& [name, gen] : model.named_generators()) gen->set_state(c.rng.at("model." + name));
  loader.seek({c.data.epoch, c.data.position});
  st.step = c.global_step;
  st.best = c.trainer.count("best") ? c.trainer.at("best") : INFINITY;
  st.nan_skips = c.trainer.count("nan_skips") ? int64_t(c.trainer.at("nan_skips")) : 0;
  st.wall_time = c.trainer.count("wall_time") ? c.trainer.at("wall_time") : 0;
  st.loss_history = c.loss_history;
}

// --- evaluation -----------------------------------------------------------------------------------

std::map<std::string, double> evaluate(nn::Model& model, const data::Dataset& eval_set, int64_t batch_size,
                                       int64_t max_batches) {
  NoGradGuard no_grad;
  model.eval();
  data::LoaderOptions lo;
  lo.batch_size = std::min(batch_size, eval_set.size());
  lo.shuffle = false;
  lo.prefetch = 0;
  data::DataLoader loader(eval_set, lo);
  nn::MetricSums sums;
  const int64_t n = std::min(max_batches, loader.batches_per_epoch());
  for (int64_t b = 0; b < n; ++b) nn::accumulate_sums(sums, model.loss(to_model_batch(loader.next())).sums);
  model.train();
  return model.summarize(sums);
}

// The first parameter whose gradient is not finite, or "".
std::string first_nonfinite_grad(const nn::Model& model) {
  for (const auto& [name, v] : model.named_parameters())
    if (v.grad().defined() && !ops::all_finite(v.grad())) return name;
  return {};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int run_train(const TrainCommand& cmd) {
  LINTRA_CHECK(!cmd.configs.empty(), "train: give at least one config file (e.g. configs/copy/cpu/softmax.yaml)");
  Config cfg = load_experiment_config(cmd.configs, cmd.overrides);
  const std::string yaml = to_yaml(cfg);
  if (cmd.print_config) {
    fmt::print("{}", yaml);
    return 0;
  }
  set_num_threads(int(cfg.get_int("threads")));
  RunDir run(cmd.run_dir, cfg.get_string("experiment"), yaml, cmd.overrides,
             [](const std::string& stored, const std::string& path) {
               return to_yaml(validate_section(parse_config(stored, path), experiment_schema()));
             });
  run.log(fmt::format("lintra {} train: run directory {}{} ({} threads)", LINTRA_VERSION, run.path(),
                      run.existed() ? " (resuming)" : "", num_threads()));

  const uint64_t seed = uint64_t(cfg.get_int("seed"));
  const TrainOptions to = train_options(cfg);
  DataSplits data = build_data(cfg);
  run.log(fmt::format("data: train {} ({} samples, digest {}), eval {} ({} samples, digest {})", data.train->name(),
                      data.train->size(), data::digest_hex(data.train->content_digest()), data.eval->name(),
                      data.eval->size(), data::digest_hex(data.eval->content_digest())));
  std::shared_ptr<nn::Model> model = build_model(cfg);
  run.log(fmt::format("model: {} parameters\n{}", model->num_parameters(), model->describe()));
  std::vector<NamedParam> params;
  for (const auto& [name, v] : model->named_parameters()) params.push_back({name, v});
  std::unique_ptr<Optimizer> opt = make_optimizer(params, optimizer_options(cfg));
  Schedule sched(schedule_options(cfg));

  data::LoaderOptions lo;
  lo.batch_size = cfg.get_int("data.batch_size");
  lo.seed = seed;
  lo.shuffle = true;
  lo.drop_last = true;
  lo.prefetch = cfg.get_int("data.prefetch");
  lo.bucket_by_length = cfg.get_bool("data.bucket_by_length");
  data::DataLoader loader(*data.train, lo);
  const int64_t eval_bs = cfg.get_int("data.eval_batch_size") > 0 ? cfg.get_int("data.eval_batch_size") : lo.batch_size;
  const std::string best_metric = to.best_metric.empty() ? model->primary_metric() : to.best_metric;
  const std::string monitored = cfg.get_string("schedule.monitor").empty() ? best_metric : cfg.get_string("schedule.monitor");

  CheckpointManager ckpts(run.checkpoints(), to.keep_last, to.keep_every);
  LoopState st;
  if (auto latest = ckpts.load_latest([&](const std::string& m) { run.log(m); })) {
    restore(latest->data, *model, *opt, sched, loader, st);
    run.log(fmt::format("resumed from {} at step {}", latest->path, st.step));
  }
  auto save = [&](bool best) {
    CheckpointData c = collect(*model, *opt, sched, loader, st, yaml, seed);
    std::string path = ckpts.save(st.step, c);
    if (best) ckpts.save_best(c);
    return path;
  };

  SignalScope signals;
  const bool tty = isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  const double wall0 = st.wall_time;
  auto window_start = t0;
  int64_t window_items = 0;
  nn::MetricSums window_sums;

  while (st.step < to.steps) {
    if (signals.stop_requested()) {
      st.wall_time = wall0 + seconds_since(t0);
      std::string path = save(false);
      run.log(fmt::format("stopped by a signal at step {}; checkpoint {} written. Run the same command to resume.",
                          st.step, path));
      return 130;
    }
    opt->set_lr(sched.lr_at(st.step));
    opt->zero_grad();
    double loss_sum = 0;
    for (int64_t a = 0; a < to.grad_accum; ++a) {
      data::Batch batch = loader.next();
      nn::ModelOutput out = model->loss(to_model_batch(batch));
      Var scaled = to.grad_accum == 1 ? out.loss : mul(out.loss, 1.0 / double(to.grad_accum));
      loss_sum += out.loss.item();
      scaled.backward();
      nn::accumulate_sums(window_sums, out.sums);
      window_items += batch.size();
    }
    const double loss = loss_sum / double(to.grad_accum);
    std::string bad = std::isfinite(loss) ? first_nonfinite_grad(*model) : "loss";
    if (!bad.empty()) {
      const std::string what = bad == "loss" ? "the loss" : "the gradient of " + bad;
      LINTRA_CHECK(to.nan_policy == "skip", "train: {} is not finite at step {} (train.nan_policy: error)", what, st.step + 1);
      ++st.nan_skips;
      run.log(fmt::format("step {}: {} is not finite; update skipped ({} in a row)", st.step + 1, what, st.nan_skips));
      LINTRA_CHECK(st.nan_skips <= to.max_nan_skips, "train: {} consecutive non-finite updates (train.max_nan_skips: {})",
                   st.nan_skips, to.max_nan_skips);
      opt->zero_grad();
      continue;
    }
    st.nan_skips = 0;
    const double grad_norm = to.global_clip > 0 ? clip_global_grad_norm_(params, to.global_clip) : global_grad_norm(params);
    opt->step();
    ++st.step;
    st.loss_history.push_back(loss);

    const bool last = st.step == to.steps;
    if (st.step % to.log_every == 0 || last) {
      const double dt = seconds_since(window_start);
      std::map<std::string, double> m = model->summarize(window_sums);
      m["step"] = double(st.step);
      m["epoch"] = double(loader.position().epoch);
      m["lr"] = opt->lr();
      m["grad_norm"] = grad_norm;
      m["items_per_s"] = dt > 0 ? double(window_items) / dt : 0;
      m["wall_time"] = wall0 + seconds_since(t0);
      run.metrics("train", m);
      const double rate = m["items_per_s"];
      const double remaining = rate > 0 ? double(to.steps - st.step) * double(lo.batch_size * to.grad_accum) / rate : 0;
      std::string line = fmt::format("step {}/{}  loss {:.4f}  {:.1f} {}/s  lr {:.2e}  ETA {:.0f}s", st.step, to.steps,
                                     m.count("loss") ? m["loss"] : loss, rate, model->item_name(), opt->lr(), remaining);
      if (tty) {
        std::fprintf(stderr, "\r%-100s", line.c_str());
        if (last) std::fprintf(stderr, "\n");
      } else {
        std::fprintf(stderr, "%s\n", line.c_str());
      }
      window_sums.clear();
      window_items = 0;
      window_start = std::chrono::steady_clock::now();
    }
    bool is_best = false;
    if ((to.eval_every > 0 && st.step % to.eval_every == 0) || last) {
      std::map<std::string, double> m = evaluate(*model, *data.eval, eval_bs, to.eval_batches);
      LINTRA_CHECK(sched.name() != "plateau" || m.count(monitored),
                   "schedule.monitor: the evaluation gives no metric '{}' (it gives: {})", monitored,
                   fmt::join(std::views::keys(m), ", "));
      if (auto it = m.find(monitored); it != m.end()) sched.observe(it->second);
      if (m.count(best_metric) && m[best_metric] < st.best) {
        st.best = m[best_metric];
        is_best = true;
      }
      m["step"] = double(st.step);
      m["epoch"] = double(loader.position().epoch);
      m["wall_time"] = wall0 + seconds_since(t0);
      run.metrics("eval", m);
      std::string summary;
      for (const auto& [k, v] : m)
        if (k != "step" && k != "epoch" && k != "wall_time") summary += fmt::format("  {} {:.4f}", k, v);
      if (tty) std::fprintf(stderr, "\n");
      run.log(fmt::format("eval at step {}:{}", st.step, summary));
    }
    if ((to.checkpoint_every > 0 && st.step % to.checkpoint_every == 0) || last || is_best) {
      st.wall_time = wall0 + seconds_since(t0);
      save(is_best);
    }
  }
  run.log(fmt::format("finished {} steps in {:.1f}s (this process: {:.1f}s)", st.step, wall0 + seconds_since(t0),
                      seconds_since(t0)));
  return 0;
}

}  // namespace lintra::train
