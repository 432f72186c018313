// Writers for a simulation report: a JSON document (every figure, stable key order
// and number formatting, so equal runs give equal bytes), a Chrome trace-event
// file (opens in Perfetto or chrome://tracing as a Gantt chart: one process per
// node, one thread per device, plus the NIC transfers), and the summary table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetsched/sim/sim_report.hpp"

namespace hetsched {

nlohmann::ordered_json report_to_json(const SimReport& report, const Cluster& cluster,
                                      const TaskGraph& graph, bool include_schedule = true);

nlohmann::ordered_json chrome_trace(const SimReport& report, const Cluster& cluster,
                                    const TaskGraph& graph);

// Every task's job, name, device, node, P-state, start and finish (the report must have
// been recorded with its schedule): CSV rows under a header, or a JSON array.
std::string schedule_to_csv(const SimReport& report, const Cluster& cluster,
                            const TaskGraph& graph, bool with_header = true);
nlohmann::ordered_json schedule_to_json(const SimReport& report, const Cluster& cluster,
                                        const TaskGraph& graph);

// One column per report, side by side (e.g. the same workload under several policies).
std::string summary_table(const std::vector<const SimReport*>& reports);

// Writes text to a file; throws InputError naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

// Creates the folder (and its parents) that outputs go to; InputError naming it if it cannot.
void create_output_directory(const std::string& path);

}  // namespace hetsched
