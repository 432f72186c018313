// The Pareto front: no point dominates another, it spans a real trade-off, the
// weights pick the expected end points, its CSV/SVG are well formed; and price and
// carbon accounting with deferral to a cheaper hour.
#include <gtest/gtest.h>

#include "energy/price_carbon.hpp"
#include "energy_benchmark.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/energy/pareto_output.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

TEST(ParetoFront, NonDominatedAndWeightsPickTheEnds) {
  const Cluster cluster = energy_benchmark_cluster();
  const RooflineModel perf(cluster);
  Rng rng(3);
  Workload w;
  w.jobs.push_back(workflow_job({"wf", 25, 4, 0.0}, rng));
  const TaskGraph graph(w);
  const DagInstance instance(graph, 0, perf);
  const JobEnergyModel model(instance, graph, 0, perf);
  ParetoOptions options;
  for (const Device& d : cluster.devices()) options.price_per_hour.push_back(d.spec.price_per_hour);
  const std::vector<ParetoPoint> front = pareto_front(model, options);
  ASSERT_GE(front.size(), 3u);
  for (const ParetoPoint& a : front) {
    for (const ParetoPoint& b : front)
      EXPECT_FALSE(dominates(a, b)) << a.origin << " / " << b.origin;
    // Each schedule is a real one: tasks last their P-state's time, after their inputs.
    for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
      const PlannedTask& p = a.plan.schedule.tasks[t];
      EXPECT_NEAR(p.finish_seconds - p.start_seconds, model.seconds(t, p.device, a.plan.pstates[t]),
                  1e-9);
      for (const DagNeighbor& q : instance.predecessors(t))
        EXPECT_GE(
            p.start_seconds + 1e-9,
            a.plan.schedule.tasks[q.task].finish_seconds +
                instance.comm_seconds(q.edge, a.plan.schedule.tasks[q.task].device, p.device));
    }
  }
  std::size_t fastest = 0, leanest = 0, cheapest = 0;
  for (std::size_t i = 0; i < front.size(); ++i) {
    if (front[i].makespan_seconds < front[fastest].makespan_seconds) fastest = i;
    if (front[i].energy_joules < front[leanest].energy_joules) leanest = i;
    if (front[i].cost_usd < front[cheapest].cost_usd) cheapest = i;
  }
  EXPECT_EQ(pick_by_weights(front, {1, 0, 0}), fastest);
  EXPECT_EQ(pick_by_weights(front, {0, 1, 0}), leanest);
  EXPECT_EQ(pick_by_weights(front, {0, 0, 1}), cheapest);
  EXPECT_NE(fastest, leanest);  // a real trade-off
  const std::string csv = pareto_to_csv(front, fastest);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(front.size() + 1));
  const std::string svg = pareto_to_svg(front, fastest, "front <test>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("front &lt;test&gt;"), std::string::npos);
}

TEST(ParetoFront, NonDominatedFilterDropsDominatedAndDuplicates) {
  std::vector<ParetoPoint> points{{1, 5, 1, "a", {}},
                                  {2, 4, 1, "b", {}},
                                  {2, 5, 1, "dominated", {}},
                                  {1, 5, 1, "duplicate", {}},
                                  {3, 3, 0.5, "c", {}}};
  const auto front = non_dominated(points);
  ASSERT_EQ(front.size(), 3u);
  EXPECT_EQ(front[0].origin, "a");
  EXPECT_EQ(front[1].origin, "b");
  EXPECT_EQ(front[2].origin, "c");
}

TEST(PriceCarbon, IntegralsFootprintAndDeferral) {
  const PriceCarbonSeries series = parse_price_carbon_csv(
      "start_seconds,usd_per_kwh,kg_co2_per_kwh\n0,0.30,0.5\n3600,0.10,0.2\n7200,0.40,0.6\n",
      "prices.csv");
  EXPECT_DOUBLE_EQ(series.usd_per_kwh.at(100), 0.30);
  EXPECT_DOUBLE_EQ(series.usd_per_kwh.at(5000), 0.10);
  EXPECT_DOUBLE_EQ(series.usd_per_kwh.integral(3000, 4200), 600 * 0.30 + 600 * 0.10);
  // 1 kW for an hour: now costs $0.30; the best start within the window is 3600 s.
  const DeferralChoice d = best_deferral(series, 0, 5000, 3600, 1000);
  EXPECT_DOUBLE_EQ(d.start_seconds, 3600);
  EXPECT_NEAR(d.cost_usd, 0.10, 1e-12);
  EXPECT_NEAR(d.cost_if_now_usd, 0.30, 1e-12);
  EXPECT_NEAR(d.kg_co2, 0.2, 1e-12);
  // No room to wait: it starts now.
  EXPECT_DOUBLE_EQ(best_deferral(series, 0, 0, 3600, 1000).start_seconds, 0);
  Workload w;
  Job job;
  job.name = "deferrable";
  job.deadline_seconds = 9000;
  w.jobs.push_back(job);
  job.name = "urgent";
  job.deadline_seconds.reset();
  w.jobs.push_back(job);
  const Workload deferred = defer_jobs(w, {3600, 3600}, {1000, 1000}, series);
  EXPECT_DOUBLE_EQ(deferred.jobs[0].arrival_seconds, 3600);
  EXPECT_DOUBLE_EQ(deferred.jobs[1].arrival_seconds, 0);
}

TEST(PriceCarbon, BadRowsAreInputErrorsWithPosition) {
  try {
    parse_price_carbon_csv("0,0.3,0.5\n60,abc,0.5\n", "prices.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 4);
  }
  EXPECT_THROW(parse_price_carbon_csv("60,0.3,0.5\n0,0.3,0.5\n", "p.csv"), InputError);
  EXPECT_THROW(parse_price_carbon_csv("", "p.csv"), InputError);
}

}  // namespace
}  // namespace hetsched
