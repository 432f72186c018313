// run_process: runs a program (standard input /dev/null) with an argument vector — no shell, so
// nothing in an argument is ever interpreted — captures its standard output and error, and kills it
// when it outlives its deadline. The cluster engines drive Slurm's command-line tools (sbatch,
// squeue, sinfo, scontrol, scancel) through it. posix_spawn keeps it safe to call from a
// multi-threaded server.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace hetsched {

struct ProcessRequest {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH
  // Extra NAME=value pairs added to (or replacing in) the inherited environment.
  std::vector<std::pair<std::string, std::string>> environment;
  std::chrono::milliseconds timeout{10000};
};

struct ProcessResult {
  int exit_code = -1;  // the program's exit status; -1 when it did not exit normally
  int signal = 0;      // the signal that ended it, if any
  bool timed_out = false;
  bool started = false;  // false when the program could not be run at all
  std::string standard_output;
  std::string standard_error;
  bool succeeded() const { return started && !timed_out && exit_code == 0; }
};

ProcessResult run_process(const ProcessRequest& request);

// "sbatch --parsable ..." for messages: the argv joined with spaces.
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace hetsched
