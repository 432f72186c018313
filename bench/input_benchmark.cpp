#include "input_benchmark.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/workload_file.hpp"

namespace hetsched {
namespace {

constexpr std::size_t kTasksPerJob = 100;

// One workload, written in either format.
std::string workload_text(std::size_t tasks, bool json) {
  std::string text = json ? "{\"jobs\": [\n" : "jobs:\n";
  const std::size_t jobs = (tasks + kTasksPerJob - 1) / kTasksPerJob;
  for (std::size_t j = 0; j < jobs; ++j) {
    const std::size_t in_job = std::min(kTasksPerJob, tasks - j * kTasksPerJob);
    if (json)
      text += fmt::format("{}  {{\"name\": \"job-{}\", \"tasks\": [\n", j ? ",\n" : "", j);
    else
      text += fmt::format("  - name: job-{}\n    tasks:\n", j);
    for (std::size_t t = 0; t < in_job; ++t) {
      const double flops = 1e9 * static_cast<double>(1 + (j * 7 + t * 13) % 97);
      if (json) {
        text += fmt::format(
            "{}    {{\"name\": \"t{}\", \"kernel\": \"dense_matmul\", \"flops\": {:.6g}, "
            "\"bytes\": 2e8{}}}",
            t ? ",\n" : "", t, flops, t ? fmt::format(", \"after\": [\"t{}\"]", t - 1) : "");
      } else {
        text += fmt::format(
            "      - {{name: t{}, kernel: dense_matmul, flops: {:.6g}, bytes: 2e8{}}}\n", t, flops,
            t ? fmt::format(", after: [t{}]", t - 1) : "");
      }
    }
    if (json) text += "]}";
  }
  if (json) text += "\n]}\n";
  return text;
}

// Resident memory of this process now, in bytes.
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

struct ChildFigures {
  double seconds = 0;
  double before_bytes = 0;
  double after_bytes = 0;
  std::size_t tasks = 0;
};

// Reads the file in a child process; its peak resident memory comes back through wait4.
InputBenchRow measure(const std::string& path, const std::string& format, std::size_t size) {
  int fds[2];
  if (pipe(fds) != 0) throw InputError("bench input: cannot create a pipe");
  const pid_t child = fork();
  if (child < 0) throw InputError("bench input: cannot fork");
  if (child == 0) {
    close(fds[0]);
    ChildFigures figures;
    const Cluster cluster = default_cluster();
    malloc_trim(0);
    figures.before_bytes = resident_bytes();
    const auto start = std::chrono::steady_clock::now();
    const Workload workload = load_workload_file(path, cluster);
    figures.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    malloc_trim(0);
    figures.after_bytes = resident_bytes();
    figures.tasks = workload.task_count();
    const bool written = write(fds[1], &figures, sizeof figures) == sizeof figures;
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  ChildFigures figures;
  const bool read_all = read(fds[0], &figures, sizeof figures) == sizeof figures;
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  if (!read_all || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw InputError(SourcePosition{path, 0, 0}, "bench input: the reading child failed");
  InputBenchRow row;
  row.format = format;
  row.file_bytes = size;
  row.tasks = figures.tasks;
  row.seconds = figures.seconds;
  row.megabytes_per_second = static_cast<double>(size) / 1e6 / figures.seconds;
  const double peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0 - figures.before_bytes;
  const double model_bytes = std::max(0.0, figures.after_bytes - figures.before_bytes);
  row.peak_megabytes = peak_bytes / 1e6;
  row.model_megabytes = model_bytes / 1e6;
  row.peak_over_file_size = (peak_bytes - model_bytes) / static_cast<double>(size);
  return row;
}

}  // namespace

std::vector<InputBenchRow> run_input_benchmark(const InputBenchParams& params) {
  const auto folder =
      std::filesystem::temp_directory_path() / fmt::format("hetsched-bench-input-{}", getpid());
  std::filesystem::create_directories(folder);
  std::vector<InputBenchRow> rows;
  for (const bool json : {false, true}) {
    const std::string format = json ? "json" : "yaml";
    const std::string path = (folder / ("workload." + format)).string();
    std::size_t size = 0;
    {
      const std::string text = workload_text(params.tasks, json);
      size = text.size();
      std::ofstream(path, std::ios::binary) << text;
    }
    rows.push_back(measure(path, format, size));
  }
  std::filesystem::remove_all(folder);
  return rows;
}

}  // namespace hetsched
