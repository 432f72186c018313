// How every hetsched program ends: parses the command line and runs the chosen subcommand,
// turning errors into one line and an exit status — 2 for bad input or an environment that
// cannot serve the request (no cluster engine reachable), 3 for an internal error (a policy
// that broke its contract), 1 for any other failure.
#pragma once

#include <CLI/CLI.hpp>

namespace hetsched::cli {

int run_command_line(CLI::App& app, int argc, char** argv);

}  // namespace hetsched::cli
