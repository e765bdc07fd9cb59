// tools.cpp — around single checkpoint files: check_against a model, and describe/diff for
// `lintra ckpt`.
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "train/checkpoint/checkpoint.h"
#include "train/checkpoint/detail.h"

namespace lintra {

// --- checking against a model ----------------------------------------------------------------------

std::vector<std::string> check_against(const CheckpointData& data,
                                       const std::vector<std::pair<std::string, TensorSpec>>& expected) {
  std::string prefix = data.source_path.empty() ? "" : data.source_path + ": ";
  std::map<std::string, TensorSpec> want(expected.begin(), expected.end());
  std::vector<std::string> out;
  auto compare = [&](const std::string& what, const NamedTensors& tree, bool report_missing) {
    std::map<std::string, const Tensor*> have;
    for (const auto& [name, t] : tree) have[name] = &t;
    if (report_missing) {
      for (const auto& [name, spec] : expected) {
        if (!have.count(name)) {
          out.push_back(fmt::format("{}{} {}: missing from the checkpoint (the model has {}{})", prefix, what, name,
                                    spec.dtype, shape_str(spec.shape)));
        }
      }
    }
    for (const auto& [name, t] : tree) {
      auto it = want.find(name);
      if (it == want.end()) {
        out.push_back(fmt::format("{}{} {}: in the checkpoint ({}) but not in the model", prefix, what, name,
                                  t.describe()));
        continue;
      }
      if (t.shape() != it->second.shape) {
        out.push_back(fmt::format("{}{} {}: shape {} in the checkpoint, {} in the model", prefix, what, name,
                                  shape_str(t.shape()), shape_str(it->second.shape)));
      }
      if (t.dtype() != it->second.dtype) {
        out.push_back(fmt::format("{}{} {}: dtype {} in the checkpoint, {} in the model", prefix, what, name,
                                  t.dtype(), it->second.dtype));
      }
    }
  };
  compare("model tensor", data.model, true);
  for (const auto& [slot, tree] : data.optimizer_slots) compare("optimizer slot " + slot + " tensor", tree, false);
  return out;
}

// --- describe and diff -----------------------------------------------------------------------------

namespace {

std::string human_bytes(double n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (n >= 1024 && u < 4) n /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} {}", n, units[u]) : fmt::format("{:.1f} {}", n, units[u]);
}

}  // namespace

std::string describe_checkpoint(const std::string& path) {
  std::string out = path + "\n";
  detail::ReadResult r;
  try {
    r = detail::read_checkpoint(path, /*keep_data=*/false);
  } catch (const std::exception& e) {
    return out + fmt::format("  verification  FAILED: {}\n", e.what());
  }
  const CheckpointData& d = r.data;
  out += fmt::format("  format        {} v{}, written by lintra {} at {}\n", kCheckpointFormat,
                     kCheckpointFormatVersion, d.lintra_version, d.created_utc);
  out += fmt::format("  step          {} (epoch {}, world size {})\n", d.global_step, d.epoch, d.world_size());
  out += fmt::format("  model         {} tensors, {} parameters ({})\n", d.model.size(), r.model_params,
                     human_bytes(double(r.model_bytes)));
  std::vector<std::string> slots, hparams;
  for (const auto& [slot, tree] : d.optimizer_slots) slots.push_back(slot);
  for (const auto& [k, v] : d.optimizer_hparams) hparams.push_back(fmt::format("{}={:g}", k, v));
  out += fmt::format("  optimizer     {}, step {}, slots [{}]; {}\n", d.optimizer_type.empty() ? "-" : d.optimizer_type,
                     d.optimizer_step, fmt::join(slots, ", "), fmt::join(hparams, " "));
  const DataPosition& data = d.ranks.front().data;
  out += fmt::format("  data          epoch {}, position {}, shuffle seed {}{}\n", data.epoch, data.position,
                     data.shuffle_seed, d.world_size() > 1 ? " (rank 0; each rank's is under /data/rank_<r>)" : "");
  if (d.config_yaml.empty()) {
    out += "  config        (none)\n";
  } else {
    out += fmt::format("  config        {} bytes, xxh3 {:016x}\n", d.config_yaml.size(),
                       XXH3_64bits(d.config_yaml.data(), d.config_yaml.size()));
  }
  if (r.problems.empty()) {
    out += fmt::format("  verification  OK: {} datasets, {} checked, file digest {}\n", r.datasets,
                       human_bytes(double(r.bytes)), detail::hex(r.file_digest));
  } else {
    out += fmt::format("  verification  FAILED: {} problem(s)\n", r.problems.size());
    for (const auto& p : r.problems) out += "    " + p + "\n";
  }
  return out;
}

std::vector<TensorDiff> diff_checkpoints(const std::string& a, const std::string& b) {
  auto tensors = [](const CheckpointData& d) {
    std::map<std::string, Tensor> m;
    for (const auto& [name, t] : d.model) m[detail::dotted_to_path("/model", name)] = t;
    for (const auto& [slot, tree] : d.optimizer_slots) {
      for (const auto& [name, t] : tree) m[detail::dotted_to_path("/optimizer/" + slot, name)] = t;
    }
    return m;
  };
  std::map<std::string, Tensor> ta = tensors(load_checkpoint(a)), tb = tensors(load_checkpoint(b));
  std::set<std::string> paths;
  for (const auto& [p, t] : ta) paths.insert(p);
  for (const auto& [p, t] : tb) paths.insert(p);
  std::vector<TensorDiff> out;
  for (const auto& p : paths) {
    TensorDiff diff;
    diff.path = p;
    auto ia = ta.find(p), ib = tb.find(p);
    if (ia != ta.end()) diff.a = ia->second.describe();
    if (ib != tb.end()) diff.b = ib->second.describe();
    if (ib == tb.end()) {
      diff.kind = TensorDiff::Kind::only_in_a;
    } else if (ia == ta.end()) {
      diff.kind = TensorDiff::Kind::only_in_b;
    } else if (diff.a != diff.b) {
      diff.kind = TensorDiff::Kind::shape_or_dtype;
    } else {
      std::vector<double> va = ia->second.to_vector<double>(), vb = ib->second.to_vector<double>();
      double m = 0;
      for (size_t i = 0; i < va.size(); ++i) {
        bool na = std::isnan(va[i]), nb = std::isnan(vb[i]);
        double d = (na && nb) ? 0.0 : (na || nb) ? INFINITY : std::fabs(va[i] - vb[i]);
        if (std::isnan(d)) d = va[i] == vb[i] ? 0.0 : INFINITY;  // inf - inf
        m = std::max(m, d);
      }
      diff.max_abs_diff = m;
      diff.kind = m == 0 ? TensorDiff::Kind::same : TensorDiff::Kind::differs;
    }
    out.push_back(std::move(diff));
  }
  return out;
}

std::string format_diff(const std::vector<TensorDiff>& diffs) {
  std::string out;
  int64_t counts[5] = {0, 0, 0, 0, 0};
  for (const auto& d : diffs) {
    ++counts[int(d.kind)];
    switch (d.kind) {
      case TensorDiff::Kind::same: out += fmt::format("  same       {}  {}\n", d.path, d.a); break;
      case TensorDiff::Kind::differs:
        out += fmt::format("  differs    {}  {}  max |a-b| = {:.6g}\n", d.path, d.a, d.max_abs_diff);
        break;
      case TensorDiff::Kind::only_in_a: out += fmt::format("  only in a  {}  {}\n", d.path, d.a); break;
      case TensorDiff::Kind::only_in_b: out += fmt::format("  only in b  {}  {}\n", d.path, d.b); break;
      case TensorDiff::Kind::shape_or_dtype: out += fmt::format("  mismatch   {}  {} vs {}\n", d.path, d.a, d.b); break;
    }
  }
  out += fmt::format("{} tensors: {} same, {} differ, {} only in a, {} only in b, {} shape/dtype mismatches\n",
                     diffs.size(), counts[0], counts[1], counts[2], counts[3], counts[4]);
  return out;
}

}  // namespace lintra

