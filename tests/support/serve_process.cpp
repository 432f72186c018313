#include "support/serve_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace hetsched {

ServeProcess::ServeProcess(const std::string& cli_path, const std::vector<std::string>& arguments,
                           std::chrono::milliseconds startup_timeout) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("serve: cannot create a pipe");
  std::vector<std::string> args{cli_path, "serve", "--listen", "127.0.0.1:0"};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::runtime_error("serve: fork failed");
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  pid_ = pid;
  output_fd_ = pipe_fds[0];

  // The server prints "listening on http://..." and "token file: ..." lines at start.
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + startup_timeout;
  while (address_.empty() || token_file_.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{output_fd_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      kill_now();
      throw std::runtime_error("serve: no address printed in time; output: " + output);
    }
    char buffer[512];
    const ssize_t n = ::read(output_fd_, buffer, sizeof buffer);
    if (n <= 0) {
      kill_now();
      throw std::runtime_error("serve: exited before listening; output: " + output);
    }
    output.append(buffer, static_cast<std::size_t>(n));
    std::size_t line_start = 0;
    for (std::size_t end; (end = output.find('\n', line_start)) != std::string::npos;
         line_start = end + 1) {
      const std::string line = output.substr(line_start, end - line_start);
      constexpr std::string_view kListening = "listening on ";
      constexpr std::string_view kToken = "token file: ";
      if (line.rfind(kListening, 0) == 0) address_ = line.substr(kListening.size());
      if (line.rfind(kToken, 0) == 0) token_file_ = line.substr(kToken.size());
    }
  }
}

ServeProcess::~ServeProcess() {
  kill_now();
  if (output_fd_ >= 0) ::close(output_fd_);
}

void ServeProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace hetsched
