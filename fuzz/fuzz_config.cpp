// fuzz_config.cpp — the YAML config pipeline (train/config/, train/experiment_config.h): parsing,
// include, merging, key=value overrides and validation against the experiment schema.
//
// Input: three parts separated by NUL bytes: main.yaml, inc.yaml (which main.yaml may include as
// `include: [inc.yaml]`, and which may include main.yaml back: a cycle), and override lines.
// Checks: only lintra::Error escapes; any config that parses round-trips through to_yaml, which
// writes no NUL byte; a resolved
// config is a fixed point of to_yaml + validation, and its typed views and size estimate read it.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "train/experiment_config.h"
#include "train/model_size.h"

namespace {

using namespace lintra;

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size() && out.size() < 16) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

void round_trip(std::string_view text) {
  Config parsed;
  if (!fuzz::accepts([&] { parsed = parse_config(text, "main.yaml"); })) return;
  const std::string yaml = to_yaml(parsed);
  FUZZ_CHECK(yaml.find('\0') == std::string::npos, "to_yaml wrote a NUL byte (a checkpoint cannot store it)");
  Config back;
  FUZZ_CHECK(fuzz::accepts([&] { back = parse_config(yaml, "to_yaml"); }), "to_yaml wrote YAML that does not parse");
  FUZZ_CHECK(back == parsed, "parse_config(to_yaml(c)) != c");
}

void resolved_is_a_fixed_point(const Config& cfg) {
  Config again;
  FUZZ_CHECK(fuzz::accepts([&] { again = validate_section(parse_config(to_yaml(cfg), "resolved"), train::experiment_schema()); }),
             "a resolved config does not validate again");
  FUZZ_CHECK(again == cfg, "validating a resolved config changed it");
  train::train_options(cfg);
  train::optimizer_options(cfg);
  train::schedule_options(cfg);
  train::attention_options(cfg);
  train::eval_batch_size(cfg);
  const train::ModelSize s = train::estimate_model_size(cfg, 64);
  FUZZ_CHECK(!(s.parameters < 0) && !(s.total_bytes() < 0), "a negative model size");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path& dir = fuzz::scratch_dir("config");
  const std::vector<std::string_view> parts = fuzz::split(data, size, '\0', 3);
  const std::string main = (dir / "main.yaml").string();
  fuzz::write_file(main, parts[0]);
  fuzz::write_file(dir / "inc.yaml", parts.size() > 1 ? parts[1] : std::string_view());
  const std::vector<std::string> overrides = parts.size() > 2 ? lines(parts[2]) : std::vector<std::string>{};
  round_trip(parts[0]);
  Config cfg;
  if (fuzz::accepts([&] { cfg = train::load_experiment_config({main}, overrides); })) resolved_is_a_fixed_point(cfg);
  return 0;
}
