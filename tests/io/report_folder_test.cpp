// A run folder: one report document per run under a unique name (the file name made safe,
// the page keeping the name as given), a trace per run of tasks and the page. And the
// benchmarks that compare policies hand each compared policy's run of their first case to
// the folder's sink (`bench … --out`).
#include "hetsched/io/report_folder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "dag_benchmark.hpp"
#include "energy_benchmark.hpp"
#include "fault_benchmark.hpp"
#include "hetsched/io/scheduling_input.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

// What a benchmark handed over, run by run.
struct HandedRun {
  std::string label;
  std::size_t scheduled = 0;
  std::size_t tasks = 0;
  double makespan_seconds = 0;
};

SimRunSink keep_in(std::vector<HandedRun>& runs) {
  return [&runs](const std::string& label, const RunReport& report, const Cluster&,
                 const TaskGraph& graph) {
    runs.push_back({label, report.schedule.size(), graph.task_count(), report.makespan_seconds});
  };
}

std::vector<std::string> labels_of(const std::vector<HandedRun>& runs) {
  std::vector<std::string> labels;
  for (const HandedRun& run : runs) labels.push_back(run.label);
  return labels;
}

TEST(ReportFolder, WritesEachRunUnderAUniqueSafeNameAndThePage) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hetsched_report_folder_" + std::to_string(::getpid()));
  const SchedulingInput input = load_scheduling_input("", "", 1);
  const RooflineModel perf(input.cluster);
  const auto policy = make_policy("greedy-eft", PolicyOptions{1});
  Simulator simulator(input.cluster, input.workload, perf, *policy, SimulationOptions{});
  const RunReport report = simulator.run();

  ReportFolder folder(dir.string(), "three runs");
  folder.add(report, input.cluster, simulator.graph());
  folder.add(report, input.cluster, simulator.graph());
  folder.add(report, input.cluster, simulator.graph(), "a+b/c");
  EXPECT_EQ(folder.runs(), 3u);
  const std::string page = folder.write_page();
  EXPECT_EQ(page, (dir / "report.html").string());
  for (const char* stem : {"greedy-eft", "greedy-eft-2", "a-b-c"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / (std::string(stem) + ".trace.json"))) << stem;
    EXPECT_TRUE(std::filesystem::exists(dir / (std::string(stem) + ".report.json"))) << stem;
  }
  EXPECT_EQ(read_report_file((dir / "greedy-eft-2.report.json").string())["policy"],
            "greedy-eft-2");
  EXPECT_EQ(read_report_file((dir / "a-b-c.report.json").string())["policy"], "a+b/c");
  EXPECT_EQ(report_files(dir.string()).size(), 3u);
  EXPECT_GT(std::filesystem::file_size(page), 100'000u);
  std::filesystem::remove_all(dir);
}

TEST(BenchmarkRuns, EnergyHandsOverTheFirstDagAtFullSpeedAndUnderBothPlans) {
  EnergyBenchmarkParams params;
  params.dags = 4;              // graphs 0, 150, 300, 450 of bench dag's 600 …
  params.max_graph_tasks = 20;  // … of which only graph 0 has 20 tasks
  std::vector<HandedRun> runs;
  params.report_runs = keep_in(runs);
  const EnergyBenchmarkResult r = run_energy_benchmark(params);
  ASSERT_EQ(labels_of(runs), (std::vector<std::string>{"insertion-eft-full-speed", "energy-aware",
                                                       "energy-aware-plus-5pct"}));
  for (const HandedRun& run : runs) EXPECT_EQ(run.scheduled, r.tasks) << run.label;
  EXPECT_LE(runs[1].makespan_seconds, runs[0].makespan_seconds * (1 + 1e-9));
  EXPECT_LE(runs[2].makespan_seconds, runs[0].makespan_seconds * (1.05 + 1e-9));

  params.simulate = false;  // nothing simulated: nothing handed over
  runs.clear();
  run_energy_benchmark(params);
  EXPECT_TRUE(runs.empty());
}

TEST(BenchmarkRuns, FaultsHandOverEachModesFirstSeedAtTheSweepsMtbf) {
  FaultBenchmarkParams p;
  p.runs = 1;
  p.seeds_per_cell = 2;
  p.mtbf_hours = {1, 10};
  p.sweep_mtbf_hours = 10;
  p.task_hours = 0.5;
  EXPECT_EQ(report_mtbf_hours(p), 10);
  std::vector<HandedRun> runs;
  p.report_runs = keep_in(runs);
  const FaultBenchmarkResult r = run_fault_benchmark(p);
  ASSERT_EQ(labels_of(runs),
            (std::vector<std::string>{"none", "daly", "replication-2", "replication-2+daly"}));
  for (const HandedRun& run : runs) EXPECT_GE(run.scheduled, run.tasks) << run.label;
  ASSERT_EQ(r.goodput.size(), 8u);

  p.mtbf_hours = {1, 2};  // the sweep's MTBF not in the table: its first
  EXPECT_EQ(report_mtbf_hours(p), 1);
}

TEST(BenchmarkRuns, TheDagReportGraphIsTheSuitesFirstOfAtLeastAHundredTasks) {
  DagBenchmarkParams params;
  params.quick = true;
  const std::vector<RandomDagDraw> draws = random_dag_suite_draws(params);
  const auto first = std::find_if(draws.begin(), draws.end(),
                                  [](const RandomDagDraw& d) { return d.params.tasks >= 100; });
  ASSERT_NE(first, draws.end());
  RandomDagDraw drawn = dag_report_draw(params);
  EXPECT_EQ(drawn.params.tasks, first->params.tasks);
  EXPECT_EQ(drawn.params.devices, first->params.devices);
  EXPECT_EQ(drawn.params.ccr, first->params.ccr);
  RandomDagDraw expected = *first;
  EXPECT_EQ(generate_random_dag(drawn.params, drawn.rng).compute_seconds,
            generate_random_dag(expected.params, expected.rng).compute_seconds);
}

}  // namespace
}  // namespace hetsched
