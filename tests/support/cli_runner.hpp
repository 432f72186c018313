// Runs the hetsched CLI built with the tests (HETSCHED_CLI_PATH) as a user would,
// capturing its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hetsched::testing {

struct CliResult {
  int status = -1;  // exit status; -1 when the process did not exit normally
  std::string out;
  std::string err;
};

inline CliResult run_cli(const std::string& arguments) {
  const auto err_path = std::filesystem::temp_directory_path() /
                        ("hetsched_cli_err_" + std::to_string(::getpid()) + ".txt");
  const std::string command =
      std::string(HETSCHED_CLI_PATH) + " " + arguments + " 2>" + err_path.string();
  CliResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  const int raw = ::pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  std::filesystem::remove(err_path);
  return result;
}

// Lines in a captured output: bad input must give exactly one error line.
inline std::size_t line_count(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace hetsched::testing
