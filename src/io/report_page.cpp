// The HTML report (see the header). Report documents name devices, nodes and jobs by their
// names; the page's data refers to them by index in columnar arrays, which keeps a page of
// 100,000 tasks small and quick to read in the browser. Transfers are laid on network lanes
// of their destination node (interval_lanes.hpp), as in the Chrome trace.
#include "hetsched/io/report_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/markup_escape.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/io/web_assets.hpp"
#include "interval_lanes.hpp"
#include "workflow_builder.hpp"  // LineIndex

namespace hetsched {

using nlohmann::ordered_json;

namespace {

// A field of a report document, checked: InputError naming the file and the field.
class ReportReader {
 public:
  explicit ReportReader(std::string source) : source_(std::move(source)) {}

  const ordered_json& field(const ordered_json& object, const char* name, const char* expected,
                            bool (ordered_json::*is)() const noexcept,
                            const std::string& where) const {
    const auto it = object.find(name);
    if (it == object.end() || !((*it).*is)())
      fail(fmt::format("{}'{}': expected {}", where, name, expected));
    return *it;
  }
  const ordered_json& array(const ordered_json& o, const char* name,
                            const std::string& where = "") const {
    return field(o, name, "a list", &ordered_json::is_array, where);
  }
  double number(const ordered_json& o, const char* name, const std::string& where = "") const {
    return field(o, name, "a number", &ordered_json::is_number, where).get<double>();
  }
  std::string text(const ordered_json& o, const char* name, const std::string& where = "") const {
    return field(o, name, "a string", &ordered_json::is_string, where).get<std::string>();
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(SourcePosition{source_, 0, 0}, message);
  }

 private:
  std::string source_;
};

void check_report(const ordered_json& document, const std::string& source) {
  const ReportReader in(source);
  if (!document.is_object() || !document.contains("format") || document["format"] != kReportFormat)
    in.fail(
        fmt::format("not a hetsched report: expected an object with \"format\": \"{}\" (as "
                    "simulate --out and run --out write in DIR/POLICY.report.json)",
                    kReportFormat));
  const ordered_json& version = document["format_version"];
  if (!version.is_number_integer()) in.fail("'format_version': expected a whole number");
  if (version.get<long long>() > kReportFormatVersion || version.get<long long>() < 1)
    in.fail(
        fmt::format("format_version {} is not one this hetsched reads (it reads {}; a newer "
                    "hetsched wrote it?)",
                    version.dump(), kReportFormatVersion));
  for (const char* name : {"schedule", "devices", "jobs"}) in.array(document, name);
  if (!document.contains("series") || !document["series"].is_object())
    in.fail(
        "'series': expected an object (a report written with its timeline, by "
        "simulate --out or run --out)");
}

// Summary rows: the figure's key, its label, and which way is better.
struct SummaryRow {
  const char* key;
  const char* label;
  const char* better;  // "lower", "higher" or nullptr
};
constexpr SummaryRow kSummaryRows[] = {
    {"makespan_seconds", "makespan (s)", "lower"},
    {"mean_response_seconds", "mean job response (s)", "lower"},
    {"mean_waiting_seconds", "mean job wait (s)", "lower"},
    {"deadlines_missed", "deadlines missed", "lower"},
    {"tasks_completed", "tasks completed", "higher"},
    {"jobs_finished", "jobs finished", "higher"},
    {"energy_kwh", "energy (kWh)", "lower"},
    {"cost_usd", "cost (USD)", "lower"},
};

ordered_json run_data(const ordered_json& doc, const std::string& source) {
  const ReportReader in(source);
  ordered_json run;
  run["policy"] = in.text(doc, "policy");
  run["workload_kind"] = doc.value("workload_kind", "tasks");

  ordered_json summary = ordered_json::array();
  for (const SummaryRow& row : kSummaryRows)
    if (doc.contains(row.key) && doc[row.key].is_number())
      summary.push_back({{"key", row.key},
                         {"label", row.label},
                         {"value", doc[row.key]},
                         {"better", row.better ? ordered_json(row.better) : ordered_json()}});
  if (doc.contains("utilization_by_kind") && doc["utilization_by_kind"].is_object())
    for (const auto& [kind, value] : doc["utilization_by_kind"].items())
      if (value.is_number())
        summary.push_back({{"key", "utilization_" + kind},
                           {"label", kind + " utilization (%)"},
                           {"value", 100 * value.get<double>()},
                           {"better", "higher"}});
  if (doc.contains("transfers") && doc["transfers"].is_object() &&
      doc["transfers"].contains("bytes") && doc["transfers"]["bytes"].is_number())
    summary.push_back({{"key", "transfer_gigabytes"},
                       {"label", "data moved (GB)"},
                       {"value", doc["transfers"]["bytes"].get<double>() / 1e9},
                       {"better", "lower"}});
  run["summary"] = std::move(summary);

  // Devices in the document's order (the cluster's: grouped by node), nodes in order of first use.
  std::unordered_map<std::string, std::size_t> device_index, node_index;
  ordered_json nodes = ordered_json::array(), devices = ordered_json::array();
  std::vector<std::uint32_t> node_of_device;
  for (const ordered_json& d : in.array(doc, "devices")) {
    if (!d.is_object()) in.fail("'devices': expected a list of objects");
    const std::string name = in.text(d, "name", "devices: ");
    const std::string node = d.contains("node") && d["node"].is_string()
                                 ? d["node"].get<std::string>()
                                 : std::string("node");
    auto [it, added] = node_index.emplace(node, node_index.size());
    if (added) nodes.push_back({{"name", node}});
    device_index.emplace(name, devices.size());
    node_of_device.push_back(static_cast<std::uint32_t>(it->second));
    devices.push_back({{"name", name},
                       {"node", it->second},
                       {"kind", d.value("kind", "")},
                       {"model", d.value("model", "")}});
  }
  const auto device_of = [&](const ordered_json& record, const char* where) {
    const std::string name = in.text(record, "device", where);
    const auto it = device_index.find(name);
    if (it == device_index.end())
      in.fail(fmt::format("{}device '{}' is not in 'devices'", where, name));
    return it->second;
  };

  std::unordered_map<std::string, std::size_t> job_index;
  ordered_json jobs = ordered_json::array();
  for (const ordered_json& j : in.array(doc, "jobs")) {
    if (!j.is_object()) in.fail("'jobs': expected a list of objects");
    const std::string name = in.text(j, "name", "jobs: ");
    job_index.emplace(name, jobs.size());
    ordered_json job{{"name", name},
                     {"arrival_seconds", in.number(j, "arrival_seconds", "jobs: ")},
                     {"completion_seconds", j.value("completion_seconds", ordered_json())},
                     {"response_seconds", j.value("response_seconds", ordered_json())}};
    if (j.contains("deadline_seconds")) {
      job["deadline_seconds"] = j["deadline_seconds"];
      job["deadline_met"] = j.value("deadline_met", true);
    }
    jobs.push_back(std::move(job));
  }
  const auto job_of = [&](const ordered_json& record) -> long long {
    if (!record.contains("job") || !record["job"].is_string()) return -1;
    const auto it = job_index.find(record["job"].get<std::string>());
    return it == job_index.end() ? -1 : static_cast<long long>(it->second);
  };

  std::vector<std::size_t> task_device;
  std::vector<long long> task_job;
  std::vector<double> task_start, task_finish;
  std::vector<std::string> task_name;
  for (const ordered_json& t : in.array(doc, "schedule")) {
    if (!t.is_object()) in.fail("'schedule': expected a list of objects");
    task_device.push_back(device_of(t, "schedule: "));
    task_job.push_back(job_of(t));
    task_start.push_back(in.number(t, "start_seconds", "schedule: "));
    task_finish.push_back(in.number(t, "finish_seconds", "schedule: "));
    task_name.push_back(in.text(t, "task", "schedule: "));
  }
  run["nodes"] = std::move(nodes);
  run["devices"] = std::move(devices);
  run["jobs"] = std::move(jobs);
  run["tasks"] = {{"device", std::move(task_device)},
                  {"job", std::move(task_job)},
                  {"start", std::move(task_start)},
                  {"finish", std::move(task_finish)},
                  {"name", std::move(task_name)}};

  std::vector<std::uint32_t> transfer_node;
  std::vector<double> transfer_start, transfer_finish, transfer_bytes;
  if (doc.contains("transfer_schedule"))
    for (const ordered_json& x : in.array(doc, "transfer_schedule")) {
      if (!x.is_object()) in.fail("'transfer_schedule': expected a list of objects");
      transfer_node.push_back(node_of_device[device_of(x, "transfer_schedule: ")]);
      transfer_start.push_back(in.number(x, "start_seconds", "transfer_schedule: "));
      transfer_finish.push_back(in.number(x, "finish_seconds", "transfer_schedule: "));
      transfer_bytes.push_back(in.number(x, "bytes", "transfer_schedule: "));
    }
  // At most four network rows per node: a node that receives hundreds of small inputs at once
  // would otherwise push every other row out of sight.
  constexpr std::uint32_t kNetworkRowsPerNode = 4;
  std::vector<std::uint32_t> lanes = interval_lanes(transfer_node, transfer_start, transfer_finish,
                                                    node_index.size(), kNetworkRowsPerNode);
  run["transfers"] = {{"node", std::move(transfer_node)},
                      {"lane", std::move(lanes)},
                      {"start", std::move(transfer_start)},
                      {"finish", std::move(transfer_finish)},
                      {"bytes", std::move(transfer_bytes)}};

  std::vector<std::string> mark_kind;
  std::vector<std::size_t> mark_device;
  std::vector<long long> mark_job;
  std::vector<double> mark_seconds;
  if (doc.contains("marks"))
    for (const ordered_json& m : in.array(doc, "marks")) {
      if (!m.is_object()) in.fail("'marks': expected a list of objects");
      mark_kind.push_back(in.text(m, "kind", "marks: "));
      mark_device.push_back(device_of(m, "marks: "));
      mark_job.push_back(job_of(m));
      mark_seconds.push_back(in.number(m, "seconds", "marks: "));
    }
  run["marks"] = {{"kind", std::move(mark_kind)},
                  {"device", std::move(mark_device)},
                  {"job", std::move(mark_job)},
                  {"seconds", std::move(mark_seconds)}};
  run["series"] = doc["series"];
  return run;
}

}  // namespace

ordered_json read_report_file(const std::string& path) {
  const std::string text = read_text_file(path, "report");
  ordered_json document;
  try {
    document = ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    const std::string what = e.what();
    const std::size_t colon = what.rfind(": ");
    throw InputError(detail::LineIndex(path, text).at(e.byte > 0 ? e.byte - 1 : 0),
                     fmt::format("not a complete JSON report ({})",
                                 colon == std::string::npos ? what : what.substr(colon + 2)));
  }
  check_report(document, path);
  return document;
}

std::vector<std::string> report_files(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    constexpr std::string_view kSuffix = ".report.json";
    if (entry.is_regular_file() && name.size() > kSuffix.size() &&
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
      files.push_back(entry.path().string());
  }
  if (ec) throw InputError(SourcePosition{path, 0, 0}, "cannot list the folder: " + ec.message());
  if (files.empty())
    throw InputError(SourcePosition{path, 0, 0},
                     "no *.report.json here: expected a report file, or a folder that "
                     "simulate --out or run --out wrote");
  std::sort(files.begin(), files.end());
  return files;
}

ordered_json report_page_data(const ReportPageInput& input) {
  ordered_json runs = ordered_json::array();
  for (std::size_t i = 0; i < input.runs.size(); ++i) {
    const std::string source = i < input.sources.size() ? input.sources[i] : std::string();
    check_report(input.runs[i], source);
    runs.push_back(run_data(input.runs[i], source));
  }
  ordered_json pareto = nullptr;
  if (input.pareto != nullptr) {
    ordered_json points = ordered_json::array();
    for (const ReportParetoPoint& p : input.pareto->points)
      points.push_back({{"label", p.label}, {"x", p.x}, {"y", p.y}, {"on_front", p.on_front}});
    pareto = {{"x_label", input.pareto->x_label},
              {"y_label", input.pareto->y_label},
              {"points", std::move(points)},
              {"chosen", input.pareto->chosen >= 0 ? ordered_json(input.pareto->chosen)
                                                   : ordered_json(nullptr)}};
  }
  return {{"format", "hetsched-report-page"},
          {"version", 1},
          {"title", input.title},
          {"runs", std::move(runs)},
          {"pareto", std::move(pareto)}};
}

std::string render_report_page(const ReportPageInput& input) {
  // In a <script> block only "</script" or "<!--" could end or confuse it; no '<' is left.
  std::string data = report_page_data(input).dump();
  std::string safe;
  safe.reserve(data.size());
  for (char c : data) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
  }
  std::string html;
  html.reserve(safe.size() + web_assets::echarts.size() + web_assets::report_script.size() + 4096);
  html += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"hetsched\">\n";
  html += "<title>" + escape_markup(input.title) + "</title>\n<style>\n";
  html += web_assets::report_style;
  html += "\n</style></head>\n<body><div id=\"app\"></div>\n<script>\n";
  html += web_assets::echarts;
  html += "\n</script>\n<script id=\"hetsched-report-data\" type=\"application/json\">";
  html += safe;
  html += "</script>\n<script>\n";
  html += web_assets::report_script;
  html += "\n</script>\n</body></html>\n";
  return html;
}

}  // namespace hetsched
