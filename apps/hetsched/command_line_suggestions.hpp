// "Did you mean": when CLI11 refuses a command line, names the first word it could not
// place — an unknown subcommand or option of the command it belongs to — with the
// closest valid names.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hetsched::cli {

// A message naming the first unknown subcommand or option of argv, with the closest valid
// names; empty when every word is known (CLI11's own message then says what is wrong).
std::string suggestion_for_command_line(CLI::App& app, int argc, char** argv);

}  // namespace hetsched::cli
