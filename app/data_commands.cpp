// data_commands.cpp — `lintra data fetch|prepare ...`. Each data set's subcommand is one add_* block
// calling one function of lintra_data (fetch_mnist, prepare_photos32, prepare_speech,
// prepare_espeak_speech); the commands only parse options and print progress lines.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>

#include "app/commands.h"
#include "core/error.h"
#include "data/cache.h"
#include "data/images/mnist_fetch.h"
#include "data/images/photos32.h"
#include "data/speech/espeak_corpus.h"
#include "data/speech/speech_corpus.h"

namespace lintra::app {

namespace {

void print_line(const std::string& m) { fmt::print("{}\n", m); }

// What the parsed `data` subcommand does (set by its callback) and the --data-dir it reads.
struct DataCommands {
  std::string data_dir;          // --data-dir (else $LINTRA_DATA, else <repo>/data/cache)
  std::function<void()> action;  // set by the parsed subcommand's callback
};

// `lintra data fetch mnist`
void add_fetch(CLI::App* data_cmd, DataCommands& cmds) {
  auto name = std::make_shared<std::string>();
  auto* fetch = data_cmd->add_subcommand("fetch", "download and verify a data set (idempotent)\n"
                                                   "Example: lintra data fetch mnist");
  fetch->add_option("name", *name, "data set")->required()->check(CLI::IsMember({"mnist"}));
  fetch->callback([&cmds, name] {
    cmds.action = [&cmds] {
      auto dir = data::fetch_mnist(data::data_root(cmds.data_dir), print_line);
      fmt::print("mnist: verified in {}\n", dir.string());
    };
  });
}

// `lintra data prepare photos32 [--seed S] [--train-count N] [--test-count M]`
void add_prepare_photos32(CLI::App* prepare, DataCommands& cmds) {
  auto opt = std::make_shared<data::Photos32Options>();
  auto* cmd = prepare->add_subcommand(
      "photos32", "32×32 patches of 33 photos from Debian packages, in CIFAR-10's binary format (the CIFAR-10\n"
                  "stand-in; DATA.md). Downloads 163 MB of .debs once (kept in <cache>/photos32/debs).\n"
                  "Example: lintra data prepare photos32 --seed 1");
  cmd->add_option("--seed", opt->seed, "patch sampler seed (same seed, same bytes)")->capture_default_str();
  cmd->add_option("--train-count", opt->train_count, "training patches, over data_batch_1..5.bin")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--test-count", opt->test_count, "test patches, in test_batch.bin")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([&cmds, opt] {
    cmds.action = [&cmds, opt] { data::prepare_photos32(data::data_root(cmds.data_dir), *opt, print_line); };
  });
}

// `lintra data prepare speech --manifest FILE --out DIR [--threads N]`
void add_prepare_speech(CLI::App* prepare, DataCommands& cmds) {
  struct Args {
    std::string manifest, out;
    data::PrepareSpeechOptions opt;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = prepare->add_subcommand(
      "speech", "40-dim log-mel features of any speech corpus (e.g. WSJ converted to 16 kHz WAV) from a manifest of\n"
                "TAB-separated rows 'split id wav phones' (split train|dev|test; wav relative to the manifest;\n"
                "39 ARPAbet phones, stress digits ignored), into DIR/{train,dev,test}.h5 (DATA.md).\n"
                "Example: lintra data prepare speech --manifest wsj/manifest.tsv --out data/cache/wsj");
  cmd->add_option("--manifest", args->manifest, "manifest file (TSV: split, id, wav path, phones)")->required();
  cmd->add_option("--out", args->out, "output folder for train.h5, dev.h5, test.h5")->required();
  cmd->add_option("--threads", args->opt.threads, "feature threads (0: all)")->capture_default_str();
  cmd->callback([&cmds, args] {
    cmds.action = [args] {
      for (const auto& s : data::prepare_speech(args->manifest, args->out, args->opt, print_line)) {
        fmt::print("speech: {}: {} utterances, {} frames -> {}\n", s.split, s.utterances, s.frames, s.file.string());
      }
    };
  });
}

// `lintra data prepare espeak-speech [--size tiny|small|full] [--seed N] [--keep-wavs]`
void add_prepare_espeak_speech(CLI::App* prepare, DataCommands& cmds) {
  auto opt = std::make_shared<data::EspeakCorpusOptions>();
  auto* cmd = prepare->add_subcommand(
      "espeak-speech", "synthetic read speech from espeak-ng with the phonemes it spoke (the WSJ stand-in; DATA.md),\n"
                       "made into <cache>/espeak-speech-<size>/ by the same pipeline as `prepare speech`.\n"
                       "Sizes (train/dev/test utterances): tiny 40/8/8 (seconds), small 600/80/80 (about a\n"
                       "minute on 2 cores), full 4000/400/300 (DATA.md's recommendation). Needs espeak-ng, sox,\n"
                       "fortunes and wordnet-base (tools/install-deps.sh).\n"
                       "Example: lintra data prepare espeak-speech --size small --seed 1");
  cmd->add_option("--size", opt->size, "corpus size")->capture_default_str()->check(
      CLI::IsMember({"tiny", "small", "full"}));
  cmd->add_option("--seed", opt->seed, "text, voice and prosody seed (same seed, same corpus)")->capture_default_str();
  cmd->add_flag("--keep-wavs", opt->keep_wavs, "keep the 16 kHz WAVs (deleted once the features exist by default)");
  cmd->callback([&cmds, opt] {
    cmds.action = [&cmds, opt] {
      auto dir = data::prepare_espeak_speech(data::data_root(cmds.data_dir), *opt, print_line);
      fmt::print("espeak-speech: {} ready in {}\n", opt->size, dir.string());
    };
  });
}

}  // namespace

Command add_data_commands(CLI::App& app) {
  auto cmds = std::make_shared<DataCommands>();
  auto* data_cmd = app.add_subcommand("data", "fetch or prepare data sets into the data cache\n"
                                              "(--data-dir, else $LINTRA_DATA, else <repo>/data/cache)");
  data_cmd->require_subcommand(1);
  data_cmd->add_option("--data-dir", cmds->data_dir, "data cache folder");
  add_fetch(data_cmd, *cmds);

  auto* prepare = data_cmd->add_subcommand("prepare", "build a prepared data set from its sources (idempotent)");
  prepare->require_subcommand(1);
  // Each prepared data set registers its subcommand of `prepare` here (one add_prepare_* each).
  add_prepare_photos32(prepare, *cmds);
  add_prepare_speech(prepare, *cmds);
  add_prepare_espeak_speech(prepare, *cmds);
  return {data_cmd, [cmds] {
            LINTRA_CHECK(static_cast<bool>(cmds->action), "lintra data: no subcommand was parsed");
            cmds->action();
            return 0;
          }};
}

}  // namespace lintra::app
