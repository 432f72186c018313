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
#include "hetsched/io/wfcommons_importer.hpp"
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

// A WfCommons 1.5 instance of `tasks` tasks: rows of 100, each task after the one before it
// in its row and the one above it, reading its parents' output files.
std::string wfcommons_text(std::size_t tasks) {
  constexpr std::size_t kRow = 100;
  const auto id = [](std::size_t i) { return fmt::format("\"task_ID{:07d}\"", i); };
  const auto file = [](std::size_t i) { return fmt::format("\"out_{:07d}.dat\"", i); };
  std::string spec, files, records;
  for (std::size_t i = 0; i < tasks; ++i) {
    std::vector<std::size_t> parents, children;
    if (i % kRow != 0) parents.push_back(i - 1);
    if (i >= kRow) parents.push_back(i - kRow);
    if ((i + 1) % kRow != 0 && i + 1 < tasks) children.push_back(i + 1);
    if (i + kRow < tasks) children.push_back(i + kRow);
    const auto list = [](const std::vector<std::size_t>& of, const auto& name) {
      std::string out;
      for (std::size_t k = 0; k < of.size(); ++k) out += (k ? ", " : "") + name(of[k]);
      return "[" + out + "]";
    };
    spec += fmt::format(
        "{}      {{\"name\": {}, \"id\": {}, \"parents\": {}, \"children\": {}, "
        "\"inputFiles\": {}, \"outputFiles\": [{}]}}",
        i ? ",\n" : "", id(i), id(i), list(parents, id), list(children, id), list(parents, file),
        file(i));
    files += fmt::format("{}      {{\"id\": {}, \"sizeInBytes\": {}}}", i ? ",\n" : "", file(i),
                         1'000'000 + i % 4096);
    records += fmt::format(
        "{}      {{\"id\": {}, \"runtimeInSeconds\": {:.3f}, \"command\": {{\"program\": "
        "\"mProject\", \"arguments\": [\"-X\"]}}, \"avgCPU\": 96.5, \"memoryInBytes\": "
        "14660000, \"machines\": [\"node-1\"]}}",
        i ? ",\n" : "", id(i), 1.0 + static_cast<double>(i % 97) / 10.0);
  }
  return fmt::format(
      "{{\n  \"name\": \"generated\",\n  \"schemaVersion\": \"1.5\",\n  \"workflow\": {{\n"
      "    \"specification\": {{\n      \"tasks\": [\n{}\n      ],\n      \"files\": [\n{}\n"
      "      ]\n    }},\n    \"execution\": {{\n      \"makespanInSeconds\": 1,\n"
      "      \"executedAt\": \"2026-01-01T00:00:00\",\n      \"tasks\": [\n{}\n      ],\n"
      "      \"machines\": [{{\"nodeName\": \"node-1\", \"cpu\": {{\"coreCount\": 48, "
      "\"speedInMHz\": 2400}}}}]\n    }}\n  }}\n}}\n",
      spec, files, records);
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
    // The figures are taken while what was read is still held.
    const auto record = [&](std::size_t tasks) {
      figures.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      malloc_trim(0);
      figures.after_bytes = resident_bytes();
      figures.tasks = tasks;
    };
    if (format == "wfcommons") {
      const Job job = import_wfcommons_file(path);
      record(job.tasks.size());
    } else {
      const Workload workload = load_workload_file(path, cluster);
      record(workload.task_count());
    }
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
  for (const std::string format : {"yaml", "json", "wfcommons"}) {
    const std::string path = (folder / ("input." + format)).string();
    std::size_t size = 0;
    {
      const std::string text = format == "wfcommons"
                                   ? wfcommons_text(params.workflow_tasks)
                                   : workload_text(params.tasks, format == "json");
      size = text.size();
      std::ofstream(path, std::ios::binary) << text;
    }
    rows.push_back(measure(path, format, size));
  }
  std::filesystem::remove_all(folder);
  return rows;
}

}  // namespace hetsched
