// The HTML report's data: series over time rebuilt from a known schedule, report files read
// back or refused with the reason (not a report, truncated, a newer format), the page's data
// in columns with non-overlapping network lanes, and workload names that cannot break out of
// the page's script.
#include "hetsched/io/report_page.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../support/cli_runner.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/io/scheduling_input.hpp"
#include "hetsched/io/stream_workload_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "io/interval_lanes.hpp"
#include "io/run_series.hpp"
#include "io_test_support.hpp"

namespace hetsched {
namespace {

using nlohmann::ordered_json;
using test_support::input_error_of;

TEST(StepSeries, SumsChangesPerInstantAndResamplesToTimeWeightedMeans) {
  // Busy 0 → 2 at t = 1, → 1 at t = 3, → 0 at t = 4.
  const StepSeries s = StepSeries::from_changes({{3, -1}, {1, 1}, {0, 0}, {1, 1}, {4, -1}, {3, 0}});
  EXPECT_EQ(s.times, (std::vector<double>{0, 1, 3, 4}));
  EXPECT_EQ(s.values, (std::vector<double>{0, 2, 1, 0}));
  // Two halves of [0, 4): (0·1 + 2·1) / 2 = 1 and (2·1 + 1·1) / 2 = 1.5.
  const StepSeries half = s.resampled(4, 2);
  EXPECT_EQ(half.times, (std::vector<double>{0, 2}));
  EXPECT_EQ(half.values, (std::vector<double>{1, 1.5}));
  // Short enough: unchanged.
  EXPECT_EQ(s.resampled(4, 10).values, s.values);
}

// Three 1000 s tasks of one job on two GPUs: two run at once, then the third alone.
struct ThreeTasksOnTwoGpus {
  Cluster cluster;
  Workload workload;
  ThreeTasksOnTwoGpus() {
    Node node;
    node.name = "n0";
    cluster.add_node(node, {*find_catalog_part("H100-SXM"), *find_catalog_part("H100-SXM")});
    Job job;
    job.name = "job";
    for (int i = 0; i < 3; ++i) {
      Task task;
      task.name = "t" + std::to_string(i);
      task.kernel = KernelClass::dense_matmul;
      task.cost_seconds = {1000, 1000};
      job.tasks.push_back(task);
    }
    workload.jobs.push_back(job);
  }
};

TEST(RunSeries, UtilizationQueueAndPowerFollowTheSchedule) {
  ThreeTasksOnTwoGpus setup;
  const RooflineModel perf(setup.cluster);
  const auto policy = make_policy("greedy-eft", PolicyOptions{1});
  Simulator simulator(setup.cluster, setup.workload, perf, *policy, SimulationOptions{});
  const RunReport r = simulator.run();
  ASSERT_DOUBLE_EQ(r.makespan_seconds, 2000);
  const ordered_json series = run_series_json(r, setup.cluster, simulator.graph());
  const ordered_json& utilization = series["utilization"];
  EXPECT_EQ(utilization["times"], ordered_json({0.0, 1000.0, 2000.0}));
  EXPECT_EQ(utilization["by_kind"]["gpu"], ordered_json({1.0, 0.5, 0.0}));
  // All three are ready at 0 and two start: one waits until 1000.
  EXPECT_EQ(series["queue"]["times"], ordered_json({0.0, 1000.0}));
  EXPECT_EQ(series["queue"]["tasks"], ordered_json({1.0, 0.0}));
  // Power: idle, both busy, one busy, idle again; its highest sample is the reported peak.
  const std::vector<double> watts = series["power"]["watts"].get<std::vector<double>>();
  ASSERT_EQ(watts.size(), 3u);
  EXPECT_DOUBLE_EQ(*std::max_element(watts.begin(), watts.end()), r.peak_power_watts);
  EXPECT_LT(watts[1], watts[0]);
  EXPECT_TRUE(series["power"]["cap_watts"].is_null());
  EXPECT_TRUE(series["temperature"].is_null());
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hetsched_report_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

ordered_json default_report(const std::string& job_name = "") {
  SchedulingInput input = load_scheduling_input("", "", 1);
  if (!job_name.empty()) input.workload.jobs.front().name = job_name;
  const RooflineModel perf(input.cluster);
  const auto policy = make_policy("greedy-eft", PolicyOptions{1});
  Simulator simulator(input.cluster, input.workload, perf, *policy, SimulationOptions{});
  return report_to_json(simulator.run(), input.cluster, simulator.graph());
}

TEST(ReportFile, IsReadBackAndRefusedWhenItIsNotAReportTruncatedOrNewer) {
  const ordered_json report = default_report();
  const std::string good = write_temp("good.json", report.dump(2));
  EXPECT_EQ(read_report_file(good), report);

  const std::string other = write_temp("other.json", R"({"nodes": []})");
  EXPECT_CONTAINS(input_error_of([&] { read_report_file(other); }),
                  other + ": not a hetsched report");

  const std::string text = report.dump(2);
  const std::string truncated = write_temp("truncated.json", text.substr(0, text.size() / 2));
  const std::string message = input_error_of([&] { read_report_file(truncated); });
  EXPECT_CONTAINS(message, truncated + ":");
  EXPECT_CONTAINS(message, "not a complete JSON report");

  ordered_json newer = report;
  newer["format_version"] = 999;
  const std::string newer_path = write_temp("newer.json", newer.dump());
  EXPECT_CONTAINS(input_error_of([&] { read_report_file(newer_path); }),
                  "format_version 999 is not one this hetsched reads");

  ordered_json without_timeline = default_report();
  without_timeline.erase("series");
  const std::string old_path = write_temp("no_series.json", without_timeline.dump());
  EXPECT_CONTAINS(input_error_of([&] { read_report_file(old_path); }), "'series'");
  for (const auto& path : {good, other, truncated, newer_path, old_path})
    std::filesystem::remove(path);
}

// Interval partitioning, by hand: in order of start, [0,2) lane 0, [0,5) lane 1, [1,3) lane 2,
// [2,4) lane 0 again (free at 2). With two lanes at most, [1,3) shares lane 0, which frees
// first (at 2), and [2,4) finds both busy and shares lane 0 again (it frees at 3, lane 1 at 5).
TEST(IntervalLanes, FewestLanesAndSharingBeyondTheBound) {
  const std::vector<std::uint32_t> group{0, 0, 0, 0, 1};
  const std::vector<double> start{0, 1, 2, 0, 1}, finish{2, 3, 4, 5, 2};
  EXPECT_EQ(interval_lanes(group, start, finish, 2), (std::vector<std::uint32_t>{0, 2, 0, 1, 0}));
  EXPECT_EQ(interval_lanes(group, start, finish, 2, 2),
            (std::vector<std::uint32_t>{0, 0, 0, 1, 0}));
}

TEST(ReportPage, DataIsColumnarWithAtMostFourNetworkRowsPerNode) {
  const ordered_json report = default_report();
  ReportPageInput input{.title = "t", .runs = {report, report}, .sources = {"a", "b"}};
  const ordered_json page = report_page_data(input);
  ASSERT_EQ(page["runs"].size(), 2u);
  const ordered_json& run = page["runs"][0];
  const std::size_t tasks = report["schedule"].size();
  for (const char* column : {"device", "job", "start", "finish", "name"})
    EXPECT_EQ(run["tasks"][column].size(), tasks) << column;
  EXPECT_EQ(run["devices"].size(), report["devices"].size());
  const ordered_json& x = run["transfers"];
  ASSERT_EQ(x["start"].size(), report["transfer_schedule"].size());
  ASSERT_GT(x["start"].size(), 0u);
  std::uint32_t most = 0;
  for (const ordered_json& lane : x["lane"]) most = std::max(most, lane.get<std::uint32_t>());
  EXPECT_EQ(most, 3u);  // the default run has nodes that receive more than four at once
}

TEST(ReportPage, NamesFromTheWorkloadCannotEndItsScript) {
  const std::string hostile = "</script><img src=x onerror=alert(1)>";
  ReportPageInput input{.title = hostile, .runs = {default_report(hostile)}, .sources = {"s"}};
  const std::string html = render_report_page(input);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  std::size_t scripts = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);  // ECharts, the data, the page's script
  EXPECT_NE(html.find("&lt;/script&gt;&lt;img"), std::string::npos);  // the title, as text
}

// A job stream in the report's format: every run of a job holds as many device rows as its
// gang on that node, and no device row holds two runs at once (the core never gives one device
// to two gangs); a round-mode run's migrations are marked.
TEST(StreamReport, RunsGetDeviceSlotsThatNeverOverlap) {
  const StreamWorkload workload =
      load_stream_workload(std::string(HETSCHED_SOURCE_DIR) + "/examples/stream_small.yaml");
  const StreamResources resources = stream_resources(workload.cluster);
  for (const std::string policy : {"fifo", "aware-las"}) {
    StreamSimOptions options;
    options.record_segments = true;
    const StreamReport r = simulate_stream(workload, policy, options);
    ASSERT_FALSE(r.segments.empty()) << policy;
    const ordered_json doc = stream_report_to_json(r, workload, resources);
    std::size_t held = 0;
    for (const StreamRunSegment& s : r.segments) held += s.devices > 0 ? s.devices : 1;
    const ordered_json& schedule = doc["schedule"];
    ASSERT_EQ(schedule.size(), held) << policy;
    std::map<std::string, std::vector<std::pair<double, double>>> by_device;
    for (const ordered_json& run : schedule)
      by_device[run["device"].get<std::string>()].emplace_back(run["start_seconds"],
                                                               run["finish_seconds"]);
    for (auto& [device, runs] : by_device) {
      std::sort(runs.begin(), runs.end());
      for (std::size_t i = 1; i < runs.size(); ++i)
        EXPECT_LE(runs[i - 1].second, runs[i].first + 1e-9) << policy << " " << device;
    }
    std::size_t moved = 0;
    for (const StreamRunSegment& s : r.segments) moved += s.moved ? 1 : 0;
    EXPECT_EQ(doc["marks"].size(), moved) << policy;
    const ordered_json page =
        report_page_data({.title = "stream", .runs = {doc}, .sources = {policy}});
    EXPECT_EQ(page["runs"][0]["workload_kind"], "stream");
    EXPECT_EQ(page["runs"][0]["tasks"]["start"].size(), held);
  }
}

TEST(ReportCommand, DrawsASimulateRunAndRefusesBadInputWithOneLine) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hetsched_report_cli_" + std::to_string(::getpid()));
  const testing::CliResult simulated =
      testing::run_cli("simulate --policy heft --policy greedy-eft --quiet --out " + dir.string());
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "report.html"));
  const auto html = dir / "again.html";
  const testing::CliResult drawn =
      testing::run_cli("report " + dir.string() + " -o " + html.string());
  ASSERT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_NE(drawn.out.find("report of 2 runs"), std::string::npos) << drawn.out;
  EXPECT_GT(std::filesystem::file_size(html), 100'000u);

  const std::string not_report = write_temp("cli_other.json", "{\"format\": \"something\"}");
  for (const std::string& bad : {not_report, (dir / "missing.json").string()}) {
    const testing::CliResult refused = testing::run_cli("report " + bad + " -o " + html.string());
    EXPECT_EQ(refused.status, 2) << bad;
    EXPECT_EQ(testing::line_count(refused.err), 1u) << refused.err;
  }
  std::filesystem::remove(not_report);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
