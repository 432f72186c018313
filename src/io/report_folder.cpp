#include "hetsched/io/report_folder.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "hetsched/io/report_writer.hpp"

namespace hetsched {
namespace {

// A label as a file name: letters, digits, '.', '_' and '-' kept, anything else '-'.
std::string file_stem(const std::string& label) {
  std::string stem = label.empty() ? std::string("run") : label;
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
  if (stem.front() == '.') stem.front() = '_';
  return stem;
}

}  // namespace

ReportFolder::ReportFolder(std::string directory, std::string title)
    : directory_(std::move(directory)) {
  create_output_directory(directory_);
  page_.title = std::move(title);
}

void ReportFolder::add(const RunReport& report, const Cluster& cluster, const TaskGraph& graph,
                       const std::string& label) {
  const std::string name = label.empty() ? report.policy : label;
  const std::string stem = add_document(report_to_json(report, cluster, graph), name);
  write_text_file(stem + ".trace.json", chrome_trace(report, cluster, graph).dump() + "\n");
}

void ReportFolder::add(const StreamReport& report, const StreamWorkload& workload,
                       const StreamResources& resources, const std::string& label) {
  add_document(stream_report_to_json(report, workload, resources),
               label.empty() ? report.policy : label);
}

std::string ReportFolder::add_document(nlohmann::ordered_json document, const std::string& label) {
  // Two runs of one label (the same policy twice) are named label, label-2, ...
  std::string name = label;
  for (int n = 2; std::find(stems_.begin(), stems_.end(), file_stem(name)) != stems_.end(); ++n)
    name = label + "-" + std::to_string(n);
  stems_.push_back(file_stem(name));
  document["policy"] = name;
  const std::string stem = directory_ + "/" + stems_.back();
  page_.sources.push_back(stem + ".report.json");
  write_text_file(page_.sources.back(), document.dump(2) + "\n");
  page_.runs.push_back(std::move(document));
  return stem;
}

std::string ReportFolder::write_page() {
  const std::string path = directory_ + "/report.html";
  write_text_file(path, render_report_page(page_));
  return path;
}

}  // namespace hetsched
