#include "train/model_size.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace lintra::train {

namespace {

constexpr double kFloat = 4;           // bytes per parameter, gradient, slot or activation
constexpr double kSpeechFeatures = 40;  // filterbank channels (factories.cpp)
constexpr double kSpeechClasses = 40;   // 39 phones + the CTC blank

double linear(double in, double out) { return in * out + out; }  // weight + bias
double layer_norm(double d) { return 2 * d; }

// The transformer's widths, as factories.cpp and TransformerOptions::resolved() make them.
struct Widths {
  double layers, heads, d, d_ff;
};

Widths widths(const Config& m) {
  Widths w{double(m.get_int("layers")), double(m.get_int("heads")), 0, double(m.get_int("d_ff"))};
  w.d = w.heads * double(m.get_int("d_query"));
  if (w.d_ff == 0) w.d_ff = 4 * w.d;
  return w;
}

// Layers of attention (query, key, value, out: d → d), feed-forward, two norms; then the final norm.
double encoder_parameters(const Widths& w) {
  const double layer = 4 * linear(w.d, w.d) + linear(w.d, w.d_ff) + linear(w.d_ff, w.d) + 2 * layer_norm(w.d);
  return w.layers * layer + layer_norm(w.d);
}

// The input's width before the positions: d/2 when they are concatenated, d when added.
double input_width(const Config& m, const Widths& w) {
  return m.get_string("positional") == "concat" ? std::floor(w.d / 2) : w.d;
}

// A token transformer (copy, image): an embedding table of the input width.
double token_model_parameters(const Config& m, const Widths& w, double vocab, double head_out) {
  return vocab * input_width(m, w) + encoder_parameters(w) + linear(w.d, head_out);
}

double bilstm_parameters(const Config& m) {
  const double h = double(m.get_int("lstm_hidden")), layers = double(m.get_int("lstm_layers"));
  auto direction = [&](double in) { return 4 * h * in + 4 * h * h + 8 * h; };
  return 2 * direction(kSpeechFeatures) + 2 * (layers - 1) * direction(2 * h) + linear(2 * h, kSpeechClasses);
}

double parameters(const Config& cfg) {
  const Config m = cfg.section("model");
  const std::string type = m.get_string("type");
  if (type == "bilstm") return bilstm_parameters(m);
  const Widths w = widths(m);
  if (type == "copy") return token_model_parameters(m, w, 11, 11);
  if (type == "image") return token_model_parameters(m, w, 256, 3 * double(m.get_int("mixtures")));
  if (type == "speech")
    return linear(kSpeechFeatures, input_width(m, w)) + encoder_parameters(w) + linear(w.d, kSpeechClasses);
  LINTRA_FAIL("model.type: unknown model type '{}'", type);
}

int64_t optimizer_slots(const Config& cfg) {
  const std::string name = cfg.get_string("optim.name");
  if (name == "sgd") return cfg.get_double("optim.momentum") > 0 ? 1 : 0;
  return 2;  // adam, radam: exp_avg, exp_avg_sq
}

// Floats one batch keeps for backward (a lower bound; see the header).
double activation_floats(const Config& cfg, double batch, double T) {
  const Config m = cfg.section("model");
  if (m.get_string("type") == "bilstm")
    return batch * T * 2 * double(m.get_int("lstm_layers")) * 12 * double(m.get_int("lstm_hidden"));
  const Widths w = widths(m);
  const bool quadratic = m.get_string("attention.type").find("softmax") != std::string::npos;
  const double per_layer = batch * T * (10 * w.d + 2 * w.d_ff) + (quadratic ? 2 * batch * w.heads * T * T : 0);
  return w.layers * per_layer;
}

// "1,270,118,411"
std::string grouped(double n) {
  if (!(n < 9.2e18)) return fmt::format("{:.3g}", n);
  std::string s = fmt::format("{}", int64_t(n));
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

}  // namespace

std::string human_bytes(double n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (n >= 1024 && u < 6) n /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} {}", n, units[u]) : fmt::format("{:.1f} {}", n, units[u]);
}

std::string ModelSize::describe() const {
  return fmt::format(
      "{} parameters; training needs about {} (weights, gradients and {} optimizer slot(s) {}, activations of a "
      "batch of {} × {} about {})",
      grouped(parameters), human_bytes(total_bytes()), optimizer_slots, human_bytes(weight_bytes), batch, sequence,
      human_bytes(activation_bytes));
}

ModelSize estimate_model_size(const Config& cfg, int64_t sequence) {
  ModelSize s;
  s.parameters = parameters(cfg);
  s.optimizer_slots = optimizer_slots(cfg);
  s.weight_bytes = s.parameters * kFloat * double(2 + s.optimizer_slots);
  s.batch = cfg.get_int("data.batch_size");
  s.sequence = sequence;
  s.activation_bytes = activation_floats(cfg, double(s.batch), double(sequence)) * kFloat;
  return s;
}

namespace {

// The value of "<key>: <n> kB" in /proc/meminfo, in bytes; -1 when absent.
double meminfo_bytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream ss(line.substr(key.size() + 1));
    double kb = -1;
    ss >> kb;
    return kb >= 0 ? kb * 1024 : -1;
  }
  return -1;
}

// A number in a cgroup file ("max" or missing: -1).
double cgroup_value(const std::string& name) {
  std::ifstream in("/sys/fs/cgroup/" + name);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

double available_memory_bytes() {
  double avail = meminfo_bytes("MemAvailable");
  if (avail < 0) avail = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  const double max = cgroup_value("memory.max"), current = cgroup_value("memory.current");
  if (max > 0 && current >= 0) avail = std::min(avail, std::max(0.0, max - current));
  return avail;
}

void check_fits_in_memory(const Config& cfg, const ModelSize& size, double available) {
  if (size.total_bytes() <= available) return;
  const bool lstm = cfg.get_string("model.type") == "bilstm";
  const std::vector<std::string> keys =
      lstm ? std::vector<std::string>{"model.lstm_layers", "model.lstm_hidden", "data.batch_size"}
           : std::vector<std::string>{"model.layers", "model.heads", "model.d_query", "model.d_ff", "data.batch_size"};
  std::vector<std::string> named;
  for (const std::string& k : keys)
    named.push_back(fmt::format("{} = {} ({})", k, cfg.get_int(k), cfg.where(k)));
  throw Error(fmt::format(
      "model: {}, and this machine has {} available: make the model or the batch smaller\n  {}", size.describe(),
      human_bytes(available), fmt::join(named, "\n  ")));
}

}  // namespace lintra::train
