// The HTML report: one self-contained page (ECharts and the page's script compiled in,
// nothing fetched) that draws one or more runs side by side — a zoomable Gantt chart, series
// over time, job completion times, a summary table with the best values marked and, where
// one was computed, a Pareto front. Its input is report documents (report_writer.hpp) as
// written by `simulate --out` and `run --out`, so `hetsched report` can draw a run later.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hetsched {

// A report document read from `path` and checked: a JSON object that says it is a
// hetsched report of a version this build reads, with its timeline. InputError (file,
// position, what was expected) otherwise.
nlohmann::ordered_json read_report_file(const std::string& path);

// The report documents a path names: the file itself, or a folder's *.report.json in name
// order (InputError when there are none).
std::vector<std::string> report_files(const std::string& path);

// A Pareto front for the page: points (label, x, y, on the front or not), the chosen one.
struct ReportParetoPoint {
  std::string label;
  double x = 0, y = 0;
  bool on_front = false;
};
struct ReportPareto {
  std::string x_label, y_label;
  std::vector<ReportParetoPoint> points;
  int chosen = -1;  // index into points; -1: none
};

struct ReportPageInput {
  std::string title;
  std::vector<nlohmann::ordered_json> runs;  // report documents, one per policy
  const ReportPareto* pareto = nullptr;
  // `where` names the documents in error messages (a file, or "simulate"); one per run.
  std::vector<std::string> sources;
};

// The page's data (docs/report.md, "page data"): columnar, with indices for devices and jobs.
nlohmann::ordered_json report_page_data(const ReportPageInput& input);

// The whole HTML document.
std::string render_report_page(const ReportPageInput& input);

}  // namespace hetsched
