#include "workflow_suite.hpp"

#include <algorithm>
#include <filesystem>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/pegasus_dax_importer.hpp"
#include "hetsched/io/wfcommons_importer.hpp"

namespace hetsched {
namespace {

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir,
                                            const char* extension) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == extension)
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<DagBenchmarkInstance> workflow_suite_instances(const std::string& data_dir,
                                                           const PerfModel& perf) {
  std::vector<DagBenchmarkInstance> out;
  const std::filesystem::path root(data_dir);
  std::error_code ec;
  if (!std::filesystem::is_directory(root / "wfcommons", ec) &&
      !std::filesystem::is_directory(root / "pegasus", ec))
    throw InputError(SourcePosition{data_dir, 0, 0},
                     "expected a folder holding wfcommons/ or pegasus/ workflows (the "
                     "repository's data/ folder)");
  const auto add = [&](const std::filesystem::path& file, Job job) {
    Workload workload;
    workload.jobs.push_back(std::move(job));
    const TaskGraph graph(workload);
    out.push_back(DagBenchmarkInstance{file.filename().string(), DagInstance(graph, 0, perf), 0});
  };
  for (const auto& file : files_in(root / "wfcommons", ".json"))
    add(file, import_wfcommons_file(file.string()));
  for (const auto& file : files_in(root / "pegasus", ".xml"))
    add(file, import_pegasus_dax_file(file.string()));
  return out;
}

}  // namespace hetsched
