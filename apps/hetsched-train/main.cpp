// hetsched-train: `hetsched train` in a program of its own, the one that links libtorch
// (hetsched hands `train` over to it; see commands.hpp).
#include "command_line.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hetsched-train: trains hetsched's learned policy (run as `hetsched train`)"};
  app.require_subcommand(1);
  hetsched::cli::add_train_command(app);
  return hetsched::cli::run_command_line(app, argc, argv);
}
