// run_process: posix_spawnp with the child's output on two pipes, read with poll()
// until both close or the deadline passes; on timeout the child's whole process
// group is killed, so a hung tool never blocks the caller for longer than asked.
#include "hetsched/service/process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <map>

extern char** environ;

namespace hetsched {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  ~Pipe() {
    if (read_end >= 0) close(read_end);
    if (write_end >= 0) close(write_end);
  }
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void close_write() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

std::vector<std::string> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> entries;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    entries[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : extra) entries[name] = value;
  std::vector<std::string> result;
  result.reserve(entries.size());
  for (const auto& [name, value] : entries) result.push_back(name + "=" + value);
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

}  // namespace

std::string describe_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& word : argv) {
    if (!text.empty()) text += ' ';
    text += word;
  }
  return text;
}

ProcessResult run_process(const ProcessRequest& request) {
  ProcessResult result;
  if (request.argv.empty()) {
    result.standard_error = "no program given";
    return result;
  }
  Pipe out, err;
  if (!out.open() || !err.open()) {
    result.standard_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<std::string> argv_strings = request.argv;
  std::vector<std::string> env_strings = merged_environment(request.environment);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so a timeout can kill everything it started; default
  // signal dispositions and an empty mask, whatever the server set for itself.
  sigset_t no_signals, all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &all_signals);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  out.close_write();
  err.close_write();
  if (spawn_error != 0) {
    result.standard_error = request.argv[0] + ": " + std::strerror(spawn_error);
    return result;
  }
  result.started = true;

  const auto deadline = Clock::now() + request.timeout;
  std::array<pollfd, 2> fds{pollfd{out.read_end, POLLIN, 0}, pollfd{err.read_end, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.standard_output, &result.standard_error};
  int open_streams = 2;
  char buffer[65536];
  while (open_streams > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(left));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t count = read(fds[i].fd, buffer, sizeof buffer);
      if (count > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(count));
      } else if (count == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  int status = 0;
  // Both streams closed: the program normally has exited or is about to.
  while (!result.timed_out) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    poll(nullptr, 0, 5);
  }
  if (result.timed_out) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace hetsched
