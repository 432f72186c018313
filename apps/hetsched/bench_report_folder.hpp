// `hetsched bench … --out DIR` for the benchmarks that compare policies (dag, energy,
// faults, cluster): the benchmark hands each compared policy's run of its first case to a
// sink, and the runs are drawn side by side in DIR/report.html (io/report_folder.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "hetsched/io/report_folder.hpp"
#include "hetsched/sim/sim_run_sink.hpp"
#include "hetsched/stream/stream_run_sink.hpp"

namespace hetsched::cli {

class BenchReportFolder {
 public:
  // Adds `--out DIR` to `command`; `drawn` says which runs the page shows.
  BenchReportFolder(CLI::App& command, const std::string& drawn);
  BenchReportFolder(const BenchReportFolder&) = delete;  // CLI11 holds &directory_
  BenchReportFolder& operator=(const BenchReportFolder&) = delete;

  bool wanted() const { return !directory_.empty(); }

  // Creates the folder (titled `title`; InputError when it cannot) and returns a sink that
  // adds each run handed over to it; an empty function when --out was not given.
  SimRunSink sim_runs(const std::string& title);
  StreamRunSink stream_runs(const std::string& title);

  // Writes report.html (InputError when the benchmark handed over no run); in table format,
  // says where on stdout, before the benchmark's table.
  void finish(bool table_format);

 private:
  ReportFolder* open(const std::string& title);

  std::string directory_;
  std::unique_ptr<ReportFolder> folder_;
};

}  // namespace hetsched::cli
