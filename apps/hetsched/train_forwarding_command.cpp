#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched::cli {

void add_train_forwarding_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "train", "train the learned policy in the simulator (policy gradient) and write its model");
  command->prefix_command();  // every argument goes to hetsched-train as it is
  command->set_help_flag();   // --help too
  command->callback([command] {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    const auto trainer = self.parent_path() / "hetsched-train";
    if (error || !std::filesystem::exists(trainer))
      throw InputError(
          fmt::format("train needs {}, built beside hetsched (cmake --build: the "
                      "hetsched-train target)",
                      trainer.string()));
    std::vector<std::string> arguments{trainer.string(), "train"};
    for (const std::string& a : command->remaining()) arguments.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : arguments) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(trainer.c_str(), argv.data());
    throw InputError(fmt::format("cannot run {}: {}", trainer.string(), std::strerror(errno)));
  });
}

}  // namespace hetsched::cli
