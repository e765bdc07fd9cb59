#include "app/cli.h"

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "core/threading.h"

namespace lintra::app {

int run_cli(int argc, char** argv) {
  CLI::App app{"lintra — fast autoregressive transformers with linear attention, in C++.\n"
               "Reproduces 'Transformers are RNNs' (Katharopoulos et al., ICML 2020).\n\n"
               "Examples:\n"
               "  lintra selfcheck                      # gradcheck + a tiny training run\n"
               "  lintra bench kernels --json k.json    # kernels against BLAS and memcpy"};
  app.set_version_flag("--version", std::string("lintra ") + LINTRA_VERSION);
  app.require_subcommand(1);
  int threads = 0;
  app.add_option("--threads", threads, "threads for OpenMP and OpenBLAS (default: all cores)");

  Commands commands = {add_train_command(app),  add_eval_command(app),      add_sample_command(app),
                       add_ckpt_command(app),   add_config_command(app),    add_reproduce_command(app),
                       add_selfcheck_command(app)};
  for (Command& c : add_bench_commands(app)) commands.push_back(std::move(c));
  commands.push_back(add_data_commands(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  set_num_threads(threads);
  for (const Command& c : commands)
    if (c.cli->parsed()) return c.run();
  return 0;
}

}  // namespace lintra::app
