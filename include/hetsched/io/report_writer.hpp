// Writers for a simulation report: a JSON document (every figure, stable key order
// and number formatting, so equal runs give equal bytes), a Chrome trace-event
// file (opens in Perfetto or chrome://tracing as a Gantt chart: one process per
// node, one thread per device, plus the NIC transfers), and the summary table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {

// A report file says what it is and which version of the format it follows; readers refuse
// other documents and newer versions (docs/report.md).
inline constexpr const char* kReportFormat = "hetsched-report";
inline constexpr int kReportFormatVersion = 1;

// With the schedule, the report also holds the run's timeline: transfers, marks (failures,
// restarts, checkpoints, migrations) and series over time (run_series.hpp).
nlohmann::ordered_json report_to_json(const RunReport& report, const Cluster& cluster,
                                      const TaskGraph& graph, bool include_schedule = true);

// A job stream's run in the same format ("workload_kind": "stream"): each run of a job on a
// node is drawn on device slots of that node; the simulation must have recorded its segments
// (StreamSimOptions::record_segments).
nlohmann::ordered_json stream_report_to_json(const StreamReport& report,
                                             const StreamWorkload& workload,
                                             const StreamResources& resources);

nlohmann::ordered_json chrome_trace(const RunReport& report, const Cluster& cluster,
                                    const TaskGraph& graph);

// Every task's job, name, device, node, P-state, start and finish (the report must have
// been recorded with its schedule): CSV rows under a header, or a JSON array.
std::string schedule_to_csv(const RunReport& report, const Cluster& cluster, const TaskGraph& graph,
                            bool with_header = true);
nlohmann::ordered_json schedule_to_json(const RunReport& report, const Cluster& cluster,
                                        const TaskGraph& graph);

// One column per report, side by side (e.g. the same workload under several policies).
std::string summary_table(const std::vector<const RunReport*>& reports);

// Writes text to a file; throws InputError naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

// Creates the folder (and its parents) that outputs go to; InputError naming it if it cannot.
void create_output_directory(const std::string& path);

}  // namespace hetsched
