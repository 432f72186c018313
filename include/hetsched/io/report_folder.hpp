// ReportFolder: the folder a run's outputs go to (`simulate --out`, `run --out`, `bench …
// --out`): each run's report document (LABEL.report.json), a Chrome trace for runs of
// tasks (LABEL.trace.json), and report.html drawing every run side by side. One writer, so
// every command's folder has the same shape.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/io/report_page.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {

class ReportFolder {
 public:
  // Creates the folder (InputError naming it when it cannot).
  ReportFolder(std::string directory, std::string title);

  // Adds a run and writes its files now. `label` names it on the page and in the file
  // names; empty: the report's policy.
  void add(const RunReport& report, const Cluster& cluster, const TaskGraph& graph,
           const std::string& label = "");
  void add(const StreamReport& report, const StreamWorkload& workload,
           const StreamResources& resources, const std::string& label = "");

  std::size_t runs() const { return page_.runs.size(); }

  // Writes report.html with every run added so far; returns its path.
  std::string write_page();

 private:
  // Writes the document under a stem not used before; returns the stem (folder/name).
  std::string add_document(nlohmann::ordered_json document, const std::string& label);

  std::string directory_;
  ReportPageInput page_;
  std::vector<std::string> stems_;
};

}  // namespace hetsched
