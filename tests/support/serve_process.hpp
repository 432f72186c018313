// ServeProcess: a `hetsched serve` child process, for the failover benchmark and the
// kill -9 tests. It starts the CLI with the given arguments (adding
// --listen 127.0.0.1:0), reads the listening address from its first lines of output,
// and can be killed with SIGKILL and reaped. Teardown is by PID only.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace hetsched {

class ServeProcess {
 public:
  // Starts `cli_path serve --listen 127.0.0.1:0 <arguments...>` and waits (at most
  // `startup_timeout`) until it prints its address; throws std::runtime_error when it
  // exits or stays silent.
  ServeProcess(const std::string& cli_path, const std::vector<std::string>& arguments,
               std::chrono::milliseconds startup_timeout = std::chrono::seconds(20));
  ~ServeProcess();  // SIGKILL and reap when still running
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  const std::string& address() const { return address_; }  // http://127.0.0.1:PORT
  const std::string& token_file() const { return token_file_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  void kill_now();              // SIGKILL, then reap
  void forget() { pid_ = -1; }  // the caller has reaped the process itself

 private:
  pid_t pid_ = -1;
  int output_fd_ = -1;
  std::string address_;
  std::string token_file_;
};

}  // namespace hetsched
