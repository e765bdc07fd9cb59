// test_config.cpp — the config system (train/config/config.h): files merge left to right, overrides, the
// schema (defaults, types, ranges, enums with run-time lists, lists, owned and variant sections),
// the messages users see (key, file:line, hint), and the to_yaml round trip.
#include <gtest/gtest.h>

#include "tests/test_util.h"
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "train/config/config.h"

namespace lintra {
namespace {

namespace fs = std::filesystem;

// --- a small made-up schema -----------------------------------------------------------------------

// Stands in for the attention registry: its names are only known at run time.
std::vector<std::string>& attention_types() {
  static std::vector<std::string> types = {"softmax", "linear", "reformer"};
  return types;
}

Schema attention_variant(const std::string& type) {
  Schema s;
  if (type == "linear") s.add_string("feature_map", "elu", "feature map of the keys and queries");
  if (type == "reformer") {
    s.add_int("chunk_size", 32, "tokens per chunk").min(1);
    s.add_int("rounds", 4, "hashing rounds").range(1, 16);
  }
  return s;
}

Schema test_schema() {
  Schema model("the network");
  model.add_int("layers", 4, "number of transformer layers").min(1);
  model.add_int("d_model", 64, "width of the residual stream").min(1);
  model.add_list_int("hidden", {128, 128}, "feed-forward widths").min(1);
  model.add_owned_section("attention", "attention variant and its parameters",
                          variant_resolver(
                              "type", [] { return attention_types(); }, "softmax",
                              "attention variant (from the registry)", attention_variant));

  Schema optim("the optimizer");
  optim.add_enum("name", {"sgd", "adam", "radam"}, "adam", "optimizer");
  optim.add_double("lr", 1e-3, "learning rate").greater_than(0);
  optim.add_double("weight_decay", 0, "decoupled weight decay").min(0);
  optim.add_double("clip", 0, "gradient-norm clip").greater_than(0).optional();
  optim.add_list_double("betas", {0.9, 0.999}, "Adam betas").range(0, 1);

  Schema train("the loop");
  train.add_int("steps", 0, "optimizer steps").min(1).required();
  train.add_int("seed", 0, "random seed");
  train.add_bool("amp", false, "mixed precision");
  train.add_list_string("tags", {}, "labels for the run");

  Schema data("the data");
  data.add_string("name", "mnist", "dataset");
  data.add_owned_section("extra", "preparer options, validated by the preparer");

  Schema top;
  top.add_section("model", model, "model");
  top.add_section("optim", optim, "optimizer");
  top.add_section("train", train, "training loop");
  top.add_section("data", data, "dataset");
  return top;
}

// --- fixtures -------------------------------------------------------------------------------------

class TrainConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("lintra_test_config_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  Config load(const std::vector<std::string>& files, const std::vector<std::string>& overrides = {}) {
    return load_config(schema_, files, overrides);
  }

  fs::path dir_;
  Schema schema_ = test_schema();
};

using lintra::testing::error_of;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }


// --- merging --------------------------------------------------------------------------------------

TEST_F(TrainConfig, LaterFilesOverrideEarlierMappingsMergeListsReplace) {
  std::string base = write("base.yaml",
                           "model:\n  layers: 2\n  d_model: 32\n  hidden: [8, 8, 8]\n"
                           "train:\n  steps: 10\n  tags: [a, b]\n");
  std::string exp = write("exp.yaml", "model:\n  layers: 6\n  hidden: [16]\ntrain:\n  seed: 7\n");
  Config cfg = load({base, exp});
  EXPECT_EQ(cfg.get_int("model.layers"), 6);
  EXPECT_EQ(cfg.get_int("model.d_model"), 32);  // kept from base
  EXPECT_EQ(cfg.get_list_int("model.hidden"), std::vector<int64_t>{16});
  EXPECT_EQ(cfg.get_int("train.steps"), 10);
  EXPECT_EQ(cfg.get_int("train.seed"), 7);
  EXPECT_EQ(cfg.get_list_string("train.tags"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cfg.where("model.layers"), exp + ":2");
  EXPECT_EQ(cfg.where("model.d_model"), base + ":3");
}

TEST_F(TrainConfig, DefaultsFillTheResolvedConfigInSchemaOrder) {
  Config cfg = load({write("a.yaml", "train:\n  steps: 5\noptim:\n  lr: 0.01\n")});
  EXPECT_EQ(cfg.get_int("model.layers"), 4);
  EXPECT_EQ(cfg.get_string("optim.name"), "adam");
  EXPECT_DOUBLE_EQ(cfg.get_double("optim.lr"), 0.01);
  EXPECT_EQ(cfg.get_list_double("optim.betas"), (std::vector<double>{0.9, 0.999}));
  EXPECT_FALSE(cfg.get_bool("train.amp"));
  EXPECT_EQ(cfg.get_string("model.attention.type"), "softmax");
  EXPECT_FALSE(cfg.has("optim.clip"));  // optional, no default
  EXPECT_EQ(cfg.where("model.layers"), "schema default");
  EXPECT_EQ(cfg.keys(), (std::vector<std::string>{"model", "optim", "train", "data"}));
  EXPECT_EQ(cfg.section("optim").keys(), (std::vector<std::string>{"name", "lr", "weight_decay", "betas"}));
}

// An empty value used to mean "the default" and silently undid what an included file set; now it is
// an error naming the key and its place, and `~default` says the same on purpose.
TEST_F(TrainConfig, NullIsAnErrorAndTildeDefaultResetsToTheDefault) {
  std::string a = write("a.yaml", "train:\n  steps: 5\nmodel:\n  layers: 9\n");
  std::string b = write("b.yaml", "model:\n  layers:\n");
  std::string msg = error_of([&] { load({a, b}); });
  EXPECT_HAS(first_line(msg), b + ":2: model.layers: an empty value (null) is not a value");
  EXPECT_HAS(first_line(msg), "`~default` to reset it to its default (4)");
  EXPECT_HAS(error_of([&] { load({write("c.yaml", "model:\n  layers: null\n")}, {"train.steps=1"}); }),
             "c.yaml:2: model.layers: an empty value (null)");
  for (const char* o : {"model.layers=", "model.layers=null", "model.layers=~"})
    EXPECT_HAS(first_line(error_of([&] { load({a}, {o}); })),
               fmt::format("command line override `{}`: model.layers: an empty value (null)", o));
  // An empty section would wipe out the included file's keys the same way.
  EXPECT_HAS(error_of([&] { load({a, write("d.yaml", "model:\n")}); }),
             "d.yaml:1: model: an empty value (null) is not a value; write its keys indented below it");
  // The explicit reset: in a file, as an override, for a whole section, for an optional key.
  Config reset = load({a, write("e.yaml", "model:\n  layers: ~default\n")});
  EXPECT_EQ(reset.get_int("model.layers"), 4);
  EXPECT_EQ(load({a}, {"model.layers=~default"}).get_int("model.layers"), 4);
  Config sec = load({a}, {"model=~default", "model.d_model=8"});
  EXPECT_EQ(sec.get_int("model.layers"), 4);
  EXPECT_EQ(sec.get_int("model.d_model"), 8);
  EXPECT_FALSE(load({a}, {"+optim.clip=1", "optim.clip=~default"}).has("optim.clip"));
  EXPECT_HAS(error_of([&] { load({a}, {"train.steps=~default"}); }), "train.steps: required key is not set");
  // Quoted, it is only a string, and it round-trips as one.
  Config s = load({a}, {"data.name=\"~default\""});
  EXPECT_EQ(s.get_string("data.name"), "~default");
  EXPECT_EQ(parse_config(to_yaml(s), "x"), s);
  Config plain = parse_config("model:\n  layers: ~default\n", "p");
  EXPECT_TRUE(is_reset_to_default(plain.at("model.layers")));
  EXPECT_EQ(parse_config(to_yaml(plain), "p"), plain);
}

// `include: /dev/zero` used to read for ever; a config file is a regular file of at most 16 MiB.
TEST_F(TrainConfig, AnIncludeOfADeviceOrAHugeFileIsRefused) {
  EXPECT_HAS(error_of([&] { load({write("a.yaml", "include: /dev/zero\n")}); }),
             "/dev/zero: cannot open config file: not a regular file");
  const std::string big = (dir_ / "big.yaml").string();
  std::filesystem::resize_file(write("big.yaml", ""), (16 << 20) + 1);
  EXPECT_HAS(error_of([&] { load({big}); }), "a config file holds at most 16 MiB");
}

// Found by fuzz_config: yaml-cpp 0.7 read ",a: 1" for ever (a new empty document each time, memory
// growing without end); a token no value can start with is now a syntax error at its position.
TEST_F(TrainConfig, AStrayCommaIsASyntaxErrorNotAHang) {
  EXPECT_HAS(error_of([&] { parse_config(",a: 1\n", "c.yaml"); }),
             "c.yaml:1:1: YAML syntax error: unexpected ',': no value can start here");
  EXPECT_HAS(error_of([&] { load({write("late.yaml", "train:\n  steps: 5\n---\n, x\n")}); }),
             "late.yaml:4:1: YAML syntax error: unexpected ','");
  // The input the fuzzer found, whole: a comma before a plausible config.
  EXPECT_HAS(error_of([&] { parse_config(",epexriment: \"a b: c\"\ndata:\n  root: \"/tmp/x N\"\n", "f"); }),
             "f:1:1: YAML syntax error: unexpected ','");
  // Documents are still counted as before.
  EXPECT_HAS(error_of([&] { parse_config("---\n---\n", "two"); }), "two: holds 2 YAML documents");
  EXPECT_EQ(parse_config("a: 1\n", "one"), parse_config("---\na: 1\n...\n", "one"));
}

// Found by fuzz_config: a key of 342 bytes, most of them control characters, read, but to_yaml
// wrote it escaped ("\x1d", 4 bytes each) past YAML's 1024-character limit on a key, and the written
// config did not read back. Keys hold at most 256 bytes and no control characters.
TEST_F(TrainConfig, KeysWithControlCharactersOrOver256BytesAreRefused) {
  EXPECT_HAS(error_of([&] { parse_config("model:\n  lay\x1dplateau: 1\n", "k.yaml"); }),
             "k.yaml:2: model: a key may not contain control characters (byte 0x1d at offset 3)");
  const std::string long_key(257, 'a');
  EXPECT_HAS(error_of([&] { parse_config("x:\n  " + long_key + ": 1\n", "k.yaml"); }),
             "x: a key holds at most 256 bytes, this one 257");
  EXPECT_HAS(error_of([&] { parse_config(long_key + ": 1\n", "k.yaml"); }), "top level: a key holds at most 256");
  EXPECT_HAS(error_of([&] { load({write("o.yaml", "model:\n  layers: 1\n")}, {"+model." + long_key + "=1"}); }),
             "`: a key holds at most 256 bytes, this one 257");
  // 256 bytes of `"` (each written as \" ) still read back.
  const std::string quotes(256, '"');
  const Config c = parse_config("x:\n  '" + quotes + "': 1\n", "q.yaml");
  EXPECT_EQ(parse_config(to_yaml(c), "again"), c);
}

// --- overrides ------------------------------------------------------------------------------------

TEST_F(TrainConfig, OverridesAreYamlValuesAppliedAfterTheFiles) {
  std::string a = write("a.yaml", "train:\n  steps: 5\noptim:\n  lr: 0.1\n");
  Config cfg = load({a}, {"optim.lr=3e-4", "data.name=2017", "model.hidden=[1,2]", "train.amp=true",
                          "model.d_model=128", "+optim.clip=1.0", "optim.lr=5e-4"});
  EXPECT_DOUBLE_EQ(cfg.get_double("optim.lr"), 5e-4);  // the last override wins
  EXPECT_EQ(cfg.get_string("data.name"), "2017");
  EXPECT_EQ(cfg.get_list_int("model.hidden"), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(cfg.get_bool("train.amp"));
  EXPECT_EQ(cfg.get_int("model.d_model"), 128);  // not in the file: allowed by its default
  EXPECT_DOUBLE_EQ(cfg.get_double("optim.clip"), 1.0);
  EXPECT_EQ(cfg.where("optim.clip"), "command line override `+optim.clip=1.0`");
  // A whole section; mappings merge into what the files set.
  Config ext = load({a}, {"data.extra={shards: 2, cache: /tmp/x}", "data.extra.shards=3"});
  EXPECT_EQ(ext.get_int("data.extra.shards"), 3);
  EXPECT_EQ(ext.get_string("data.extra.cache"), "/tmp/x");
  // A required key that no file sets may be overridden without '+'.
  EXPECT_EQ(load({}, {"train.steps=3"}).get_int("train.steps"), 3);
}

TEST_F(TrainConfig, OverrideOfAnUnknownKeySuggestsTheCloseOne) {
  std::string a = write("a.yaml", "train:\n  steps: 5\n");
  std::string msg = error_of([&] { load({a}, {"optim.lrr=0.1"}); });
  EXPECT_HAS(first_line(msg), "command line override `optim.lrr=0.1`: optim.lrr: no such key");
  EXPECT_HAS(first_line(msg), "did you mean 'optim.lr'?");
  EXPECT_HAS(msg, "valid keys in 'optim': name, lr, weight_decay, clip, betas");
  EXPECT_HAS(msg, "+optim.lrr=0.1");
}

TEST_F(TrainConfig, OptionalKeysNeedPlusAndPlusKeysAreStillValidated) {
  std::string a = write("a.yaml", "train:\n  steps: 5\n");
  std::string msg = error_of([&] { load({a}, {"optim.clip=1.0"}); });
  EXPECT_HAS(first_line(msg), "optim.clip: not set in the config files and has no default");
  EXPECT_HAS(msg, "`+optim.clip=1.0`");
  msg = error_of([&] { load({a}, {"+optim.lrr=1"}); });
  EXPECT_HAS(first_line(msg),
             "command line override `+optim.lrr=1`: optim.lrr: unknown key; did you mean 'optim.lr'?");
  msg = error_of([&] { load({a}, {"+optim.lr.x=1"}); });  // lr is only a default: validation says
  EXPECT_HAS(first_line(msg), "`+optim.lr.x=1`: optim.lr: expected a number, got a mapping (keys x)");
  std::string b = write("b.yaml", "train:\n  steps: 5\noptim:\n  lr: 0.1\n");
  msg = error_of([&] { load({b}, {"+optim.lr.x=1"}); });
  EXPECT_HAS(first_line(msg), "optim.lr.x: cannot set it: optim.lr (" + b + ":4) is 0.1, not a section");
  msg = error_of([&] { load({a}, {"optim.lr=[1,"}); });
  EXPECT_HAS(first_line(msg), "command line override `optim.lr=[1,`: cannot read the value as YAML");
  msg = error_of([&] { load({a}, {"optim.lr"}); });
  EXPECT_HAS(first_line(msg), "`optim.lr` is not an override");
}

TEST_F(TrainConfig, OverridesReachIntoVariantSectionsThroughTheirType) {
  std::string a = write("a.yaml", "train:\n  steps: 5\n");
  Config cfg = load({a}, {"model.attention.type=reformer", "model.attention.chunk_size=64"});
  EXPECT_EQ(cfg.get_int("model.attention.chunk_size"), 64);
  EXPECT_EQ(cfg.get_int("model.attention.rounds"), 4);
  std::string msg = error_of([&] { load({a}, {"model.attention.chunk_size=64"}); });  // softmax
  EXPECT_HAS(first_line(msg), "model.attention.chunk_size: no such key");
}

TEST(TrainConfigHelpers, IsOverrideTellsKeysFromFiles) {
  EXPECT_TRUE(is_override("optim.lr=1e-3"));
  EXPECT_TRUE(is_override("+optim.clip=1"));
  EXPECT_TRUE(is_override("data.name="));
  EXPECT_FALSE(is_override("configs/mnist.yaml"));
  EXPECT_FALSE(is_override("--run-dir=x"));
  EXPECT_FALSE(is_override("dir/a=b.yaml"));
  EXPECT_FALSE(is_override("a..b=1"));
}

// --- the messages users see -----------------------------------------------------------------------

TEST_F(TrainConfig, UnknownKeyNamesFileLineAndSuggests) {
  std::string a = write("exp.yaml", "train:\n  steps: 5\noptim:\n  lrr: 0.1\n");
  std::string msg = error_of([&] { load({a}); });
  EXPECT_EQ(first_line(msg), a + ":4: optim.lrr: unknown key; did you mean 'optim.lr'?");
  EXPECT_HAS(msg, "valid keys in 'optim': name, lr, weight_decay, clip, betas");
  msg = error_of([&] { load({write("b.yaml", "train:\n  steps: 5\nmodle:\n  layers: 2\n")}); });
  EXPECT_HAS(first_line(msg), "b.yaml:3: modle: unknown key; did you mean 'model'?");
  EXPECT_HAS(msg, "valid keys in the config: model, optim, train, data");
}

TEST_F(TrainConfig, WrongTypesSayWhatWasExpectedAndFound) {
  std::string a = write("x.yaml", "train:\n  steps: 5\noptim:\n  lr: abc\nmodel:\n  layers: 2.5\n");
  std::string msg = error_of([&] { load({a}); });
  EXPECT_HAS(msg, a + ":4: optim.lr: expected a number, got abc");
  EXPECT_HAS(msg, a + ":6: model.layers: expected an integer, got 2.5");
  EXPECT_HAS(msg, "\n  model.layers: number of transformer layers [int >= 1; default 4]\n");
  EXPECT_HAS(msg, "\n  optim.lr: learning rate [float > 0; default 0.001]");
  // Both errors come at once (in schema order), one summary line first.
  EXPECT_EQ(first_line(msg), a + ":6: model.layers: expected an integer, got 2.5");

  msg = error_of([&] { load({write("q.yaml", "train:\n  steps: \"5\"\n  amp: yes\n")}); });
  EXPECT_HAS(msg, "q.yaml:2: train.steps: expected an integer, got \"5\" (a quoted string)");
  EXPECT_HAS(msg, "q.yaml:3: train.amp: expected true or false, got yes");
  msg = error_of([&] { load({write("s.yaml", "train: 3\n")}); });
  EXPECT_HAS(first_line(msg), "s.yaml:1: train: expected a section (a mapping of keys), got 3");
}

TEST_F(TrainConfig, RangesAndLists) {
  std::string msg = error_of([&] { load({write("r.yaml", "train:\n  steps: 5\nmodel:\n  d_model: -4\n")}); });
  EXPECT_EQ(first_line(msg), dir_.string() + "/r.yaml:4: model.d_model: expected an integer >= 1, got -4");
  msg = error_of([&] { load({write("z.yaml", "train:\n  steps: 5\noptim:\n  lr: 0\n")}); });
  EXPECT_HAS(first_line(msg), "optim.lr: expected a number > 0, got 0");
  msg = error_of([&] { load({write("b.yaml", "train:\n  steps: 5\noptim:\n  betas: [0.9, 1.5]\n")}); });
  EXPECT_HAS(first_line(msg), "b.yaml:4: optim.betas[1]: expected a number in [0, 1], got 1.5");
  msg = error_of([&] { load({write("h.yaml", "train:\n  steps: 5\nmodel:\n  hidden: 8\n")}); });
  EXPECT_HAS(first_line(msg), "model.hidden: expected a list of integers, got 8");
  msg =
      error_of([&] { load({write("m.yaml", "train:\n  steps: 5\nmodel:\n  hidden:\n    - 8\n    - x\n")}); });
  EXPECT_HAS(first_line(msg), "m.yaml:6: model.hidden[1]: expected an integer, got x");
  // Integral numbers are integers; integers are numbers.
  Config cfg = load({write("ok.yaml", "train:\n  steps: 1e3\noptim:\n  lr: 1\n")});
  EXPECT_EQ(cfg.get_int("train.steps"), 1000);
  EXPECT_DOUBLE_EQ(cfg.get_double("optim.lr"), 1.0);
}

TEST_F(TrainConfig, EnumsListTheirValuesIncludingOnesRegisteredAtRunTime) {
  std::string a = write("e.yaml", "train:\n  steps: 5\nmodel:\n  attention:\n    type: flash\n");
  std::string msg = error_of([&] { load({a}); });
  EXPECT_EQ(first_line(msg),
            a + ":5: model.attention.type: expected one of 'softmax', 'linear' or 'reformer', got flash");
  EXPECT_HAS(msg, "attention variant (from the registry)");
  attention_types().push_back("flash");  // a variant registered later
  EXPECT_EQ(load({a}).get_string("model.attention.type"), "flash");
  attention_types().pop_back();
  msg = error_of([&] { load({write("o.yaml", "train:\n  steps: 5\noptim:\n  name: adamw\n")}); });
  EXPECT_HAS(first_line(msg),
             "optim.name: expected one of 'sgd', 'adam' or 'radam', got adamw; did you mean 'adam'?");
}

TEST_F(TrainConfig, RequiredKeysMustBeSet) {
  std::string msg = error_of([&] { load({write("r.yaml", "model:\n  layers: 2\n")}); });
  EXPECT_HAS(first_line(msg), "train.steps: required key is not set");
  EXPECT_HAS(msg, "optimizer steps [required int >= 1]");
}

TEST_F(TrainConfig, FileLevelErrors) {
  std::string msg = error_of([&] { load({write("empty.yaml", "# nothing here\n")}); });
  EXPECT_HAS(first_line(msg), "empty.yaml: the config file is empty");
  msg = error_of([&] { load({write("list.yaml", "- a\n- b\n")}); });
  EXPECT_HAS(first_line(msg),
             "list.yaml:1: the top level must be a mapping of sections (like `model:`), got the list [a, b]");
  msg =
      error_of([&] { load({write("dup.yaml", "train:\n  steps: 5\nmodel:\n  layers: 2\n  layers: 3\n")}); });
  EXPECT_EQ(first_line(msg), dir_.string() + "/dup.yaml:5: model.layers: duplicate key; it is also set at " +
                                 dir_.string() + "/dup.yaml:4");
  msg = error_of([&] { load({write("syn.yaml", "train:\n  steps: [1,\n")}); });
  EXPECT_HAS(first_line(msg), "syn.yaml:3:1: YAML syntax error: end of sequence flow not found");
  msg = error_of([&] { load({write("tab.yaml", "train:\n\tsteps: 1\n")}); });
  EXPECT_HAS(first_line(msg), "tab.yaml:2:");
  msg = error_of([&] { load({(dir_ / "missing.yaml").string()}); });
  EXPECT_HAS(first_line(msg), "missing.yaml: cannot open config file: no such file");
  msg = error_of([&] { load({write("dot.yaml", "optim.lr: 1\n")}); });
  EXPECT_HAS(first_line(msg), "dot.yaml:1: optim.lr: a key may not contain '.'");
  msg = error_of([&] { load({write("two.yaml", "a: 1\n---\nb: 2\n")}); });
  EXPECT_HAS(first_line(msg), "holds 2 YAML documents");
}

// --- getters --------------------------------------------------------------------------------------

TEST_F(TrainConfig, GettersNameTheKeyAndPlaceOnWrongTypesAndMissingKeys) {
  std::string a = write("g.yaml", "train:\n  steps: 5\ndata:\n  name: mnist\n");
  Config cfg = load({a});
  std::string msg = error_of([&] { cfg.get_int("data.name"); });
  EXPECT_EQ(first_line(msg), a + ":4: data.name: expected an integer, got mnist");
  msg = error_of([&] { cfg.get_bool("train.steps"); });
  EXPECT_HAS(first_line(msg), "g.yaml:2: train.steps: expected true or false, got 5");
  msg = error_of([&] { cfg.get_int("train.step"); });
  EXPECT_HAS(first_line(msg), "train.step: not set in the config; did you mean 'train.steps'?");
  // A section's getters take relative keys and name full ones.
  Config data = cfg.section("data");
  EXPECT_EQ(data.path(), "data");
  EXPECT_EQ(data.get_string("name"), "mnist");
  msg = error_of([&] { data.get_double("name"); });
  EXPECT_HAS(first_line(msg), "g.yaml:4: data.name: expected a number, got mnist");
  msg = error_of([&] { cfg.section("data.name"); });
  EXPECT_HAS(first_line(msg), "data.name: expected a section (a mapping of keys), got mnist");
}

// --- owned and variant sections -------------------------------------------------------------------

TEST_F(TrainConfig, OwnedSectionPassesThroughForItsOwnerToValidate) {
  std::string a =
      write("own.yaml", "train:\n  steps: 5\ndata:\n  extra:\n    shards: 4\n    shuffel: true\n");
  Config cfg = load({a});
  EXPECT_EQ(cfg.get_int("data.extra.shards"), 4);
  Schema preparer;
  preparer.add_int("shards", 1, "number of shards").min(1);
  preparer.add_bool("shuffle", false, "shuffle the shards");
  preparer.add_string("cache", "data/cache", "cache folder");
  std::string msg = error_of([&] { validate_section(cfg.section("data.extra"), preparer); });
  EXPECT_EQ(first_line(msg), a + ":6: data.extra.shuffel: unknown key; did you mean 'data.extra.shuffle'?");
  EXPECT_HAS(msg, "valid keys in 'data.extra': shards, shuffle, cache");
  Config ok = validate_section(Config(parse_config("shards: 2\n", "inline").node(), "data.extra"), preparer);
  EXPECT_EQ(ok.get_int("shards"), 2);
  EXPECT_EQ(ok.get_string("cache"), "data/cache");
  EXPECT_EQ(load({write("no.yaml", "train:\n  steps: 5\n")}).section("data.extra").keys().size(), 0u);
}

TEST_F(TrainConfig, VariantSectionAllowsKeysByType) {
  std::string a =
      write("ref.yaml", "train:\n  steps: 5\nmodel:\n  attention:\n    type: reformer\n    chunk_size: 16\n");
  Config cfg = load({a});
  EXPECT_EQ(cfg.get_int("model.attention.chunk_size"), 16);
  EXPECT_EQ(cfg.get_int("model.attention.rounds"), 4);
  EXPECT_EQ(cfg.section("model.attention").keys(),
            (std::vector<std::string>{"type", "chunk_size", "rounds"}));
  std::string b =
      write("lin.yaml", "train:\n  steps: 5\nmodel:\n  attention:\n    type: linear\n    chunk_size: 16\n");
  std::string msg = error_of([&] { load({b}); });
  EXPECT_EQ(first_line(msg), b + ":6: model.attention.chunk_size: unknown key");
  EXPECT_HAS(msg, "valid keys in 'model.attention': type, feature_map");
  msg = error_of([&] {
    load({write("r2.yaml", "train:\n  steps: 5\nmodel:\n  attention:\n    type: reformer\n    rounds: 0\n")});
  });
  EXPECT_HAS(first_line(msg), "r2.yaml:6: model.attention.rounds: expected an integer in [1, 16], got 0");
}

// --- writing --------------------------------------------------------------------------------------

TEST_F(TrainConfig, ToYamlRoundTripsAndIsStable) {
  std::string a =
      write("rt.yaml",
            "data:\n  name: \"2017\"\n  extra:\n    note: \"a: b # c\"\n    empty: ''\n"
            "    word: \"null\"\n    quote: 'say \"hi\"'\n    unicode: héllo wörld\n"
            "    nested: [{k: 1}, [1, [2]], {}, []]\n    flag: \"true\"\n    multi: \"x\\ny\\t\"\n"
            "train:\n  steps: 5\n  tags: [\"1\", plain, 'with, comma']\n"
            "optim:\n  lr: 3e-4\n  weight_decay: 1e-2\n");
  Config cfg = load({a}, {"model.attention.type=reformer", "+optim.clip=2"});
  std::string text = to_yaml(cfg);
  Config again = validate_section(parse_config(text, "printed.yaml"), schema_);
  EXPECT_EQ(again, cfg) << text;
  EXPECT_EQ(to_yaml(again), text);
  EXPECT_EQ(parse_config(text, "printed.yaml"), cfg);  // already canonical: validation changes nothing
  EXPECT_EQ(cfg.get_string("data.name"), "2017");
  EXPECT_EQ(cfg.get_string("data.extra.multi"), "x\ny\t");
  EXPECT_EQ(cfg.get_string("data.extra.word"), "null");
  EXPECT_HAS(text,
             "model:\n  layers: 4\n  d_model: 64\n  hidden: [128, 128]\n  attention:\n    type: reformer\n");
  EXPECT_HAS(text, "optim:\n  name: adam\n  lr: 0.0003\n  weight_decay: 0.01\n  clip: 2.0\n");
  EXPECT_HAS(text, "  name: \"2017\"\n");
  // Digests: 16 hex digits, equal for equal configs, different when a value differs.
  EXPECT_EQ(config_digest_hex(cfg).size(), 16u);
  EXPECT_EQ(config_digest(again), config_digest(cfg));
  EXPECT_NE(config_digest(load({a}, {"model.attention.type=reformer", "+optim.clip=3"})), config_digest(cfg));
}

TEST_F(TrainConfig, EquivalentSpellingsResolveToTheSameConfig) {
  Config x = load({write("x.yaml", "train: {steps: 1000, amp: True}\noptim: {lr: 0.001}\n")});
  Config y = load({write("y.yaml", "train:\n  steps: 1e3\n  amp: true\noptim:\n  lr: 1e-3\n")});
  EXPECT_EQ(x, y);
  EXPECT_EQ(config_digest(x), config_digest(y));
}

TEST_F(TrainConfig, DocumentedYamlHoldsEveryKeyAndLoadsToTheDefaults) {
  std::string doc = schema_to_documented_yaml(schema_, "lintra base config\ngenerated");
  EXPECT_HAS(doc, "# lintra base config\n# generated\n\n");
  EXPECT_HAS(doc, "  # number of transformer layers [int >= 1; default 4]\n  layers: 4\n");
  EXPECT_HAS(doc, "  # optimizer [one of sgd, adam, radam; default adam]\n  name: adam\n");
  EXPECT_HAS(doc, "  # gradient-norm clip [optional float > 0]\n  # clip:\n");
  EXPECT_HAS(doc, "  # optimizer steps [required int >= 1]\n  # steps:  (required)\n");
  EXPECT_HAS(doc, "    type: softmax\n");
  EXPECT_HAS(doc, "  extra: {}\n");
  Config from_doc = load({write("base.yaml", doc)}, {"train.steps=1"});
  EXPECT_EQ(from_doc, load({}, {"train.steps=1"}));
}

// --- schema composition and helpers ---------------------------------------------------------------

TEST(TrainConfigSchema, ComposesFromPartsAndRejectsDuplicates) {
  Schema top = test_schema();
  top.section("model").add_double("dropout", 0.1, "dropout rate").range(0, 1);
  Schema extra;
  extra.add_section("eval", Schema(), "evaluation");
  top.extend(extra);
  EXPECT_EQ(top.names(), (std::vector<std::string>{"model", "optim", "train", "data", "eval"}));
  Config cfg = validate_section(parse_config("train: {steps: 1}\n", "t.yaml"), top);
  EXPECT_DOUBLE_EQ(cfg.get_double("model.dropout"), 0.1);
  EXPECT_HAS(error_of([&] { top.extend(extra); }), "schema: key 'eval' is declared twice");
  EXPECT_HAS(error_of([&] { top.section("model.layers"); }), "'model.layers' is not a declared section");
  EXPECT_HAS(error_of([&] {
               Schema s;
               s.add_bool("b", true, "").min(0);
             }),
             "cannot have a range");
  // A bad default is reported like a user's value, placed at the schema.
  Schema bad;
  bad.add_enum("kind", {"a", "b"}, "c", "a kind");
  EXPECT_HAS(first_line(error_of([&] { validate_section(Config(), bad); })),
             "schema default: kind: expected one of 'a' or 'b', got c");
}

TEST(TrainConfigHelpers, CloseNamesAndPrefixes) {
  std::vector<std::string> keys = {"lr", "name", "weight_decay", "betas", "layers"};
  EXPECT_EQ(did_you_mean("lrr", keys), std::vector<std::string>{"lr"});
  EXPECT_EQ(did_you_mean("nmae", keys), std::vector<std::string>{"name"});            // transposition
  EXPECT_EQ(did_you_mean("weight", keys), std::vector<std::string>{"weight_decay"});  // prefix
  EXPECT_EQ(did_you_mean("LAYERS", keys), std::vector<std::string>{"layers"});
  EXPECT_TRUE(did_you_mean("x", keys).empty());
  EXPECT_TRUE(did_you_mean("momentum", keys).empty());
}

}  // namespace
}  // namespace lintra
