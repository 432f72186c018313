#include "command_line_suggestions.hpp"

#include <fmt/format.h>

#include "hetsched/core/closest_names.hpp"

namespace hetsched::cli {
namespace {

// "bench dag: " before a message about the command `bench dag`; nothing for the root.
std::string command_prefix(const CLI::App& command) {
  std::string path;
  for (const CLI::App* at = &command; at->get_parent() != nullptr; at = at->get_parent())
    path = at->get_name() + (path.empty() ? "" : " ") + path;
  return path.empty() ? "" : path + ": ";
}

std::vector<std::string> long_option_names(CLI::App& command) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* option : command.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

}  // namespace

std::string suggestion_for_command_line(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return "";
    if (word.rfind("--", 0) == 0) {
      const std::string name = word.substr(0, word.find('='));
      const CLI::Option* option = command->get_option_no_throw(name);
      if (option == nullptr && name != "--help")
        return fmt::format("{}{}", command_prefix(*command),
                           unknown_name_message("option", name, long_option_names(*command)));
      // An option that takes a value given as a separate word: skip the value.
      if (option != nullptr && option->get_expected_min() > 0 && name == word) ++i;
      continue;
    }
    if (word.rfind('-', 0) == 0) continue;  // a short flag
    const auto subcommands = command->get_subcommands({});
    CLI::App* next = nullptr;
    for (CLI::App* sub : subcommands)
      if (sub->check_name(word)) next = sub;
    if (next != nullptr) {
      command = next;
      continue;
    }
    if (subcommands.empty()) continue;  // a positional argument of the command
    std::vector<std::string> names;
    for (const CLI::App* sub : subcommands) names.push_back(sub->get_name());
    return fmt::format("{}{}", command_prefix(*command),
                       unknown_name_message("command", word, names));
  }
  return "";
}

}  // namespace hetsched::cli
