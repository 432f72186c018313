#include "bench_report_folder.hpp"

#include <iostream>

#include "hetsched/core/input_error.hpp"

namespace hetsched::cli {

BenchReportFolder::BenchReportFolder(CLI::App& command, const std::string& drawn) {
  command.add_option(
      "--out", directory_,
      "write report.html and the JSON reports (with Chrome traces of task runs) of " + drawn +
          " to this folder");
}

ReportFolder* BenchReportFolder::open(const std::string& title) {
  if (!wanted()) return nullptr;
  folder_ = std::make_unique<ReportFolder>(directory_, title);
  return folder_.get();
}

SimRunSink BenchReportFolder::sim_runs(const std::string& title) {
  ReportFolder* folder = open(title);
  if (!folder) return {};
  return [folder](const std::string& label, const RunReport& report, const Cluster& cluster,
                  const TaskGraph& graph) { folder->add(report, cluster, graph, label); };
}

StreamRunSink BenchReportFolder::stream_runs(const std::string& title) {
  ReportFolder* folder = open(title);
  if (!folder) return {};
  return [folder](const std::string& label, const StreamReport& report,
                  const StreamWorkload& workload, const StreamResources& resources) {
    folder->add(report, workload, resources, label);
  };
}

void BenchReportFolder::finish(bool table_format) {
  if (!wanted()) return;
  if (!folder_ || folder_->runs() == 0)
    throw InputError("--out " + directory_ + ": the benchmark ran no case to draw");
  folder_->write_page();
  if (table_format)
    std::cout << "\nreport.html and the runs' reports written to " << directory_ << "/\n";
}

}  // namespace hetsched::cli
