// Cost-matrix files: the Topcuoglu example loads exactly as published, and bad
// files give one positioned error.
#include "hetsched/io/cost_matrix_file.hpp"

#include <gtest/gtest.h>

#include "hetsched/perf/roofline_model.hpp"
#include "import_test_support.hpp"

namespace hetsched {
namespace {

using testing_support::expect_input_error;
using testing_support::write_temp_file;

TEST(CostMatrixFile, TopcuogluExampleLoadsAsPublished) {
  const CostMatrix m =
      load_cost_matrix_file(std::string(HETSCHED_SOURCE_DIR) + "/examples/topcuoglu.yaml");
  ASSERT_EQ(m.task_names.size(), 10u);
  ASSERT_EQ(m.device_names.size(), 3u);
  EXPECT_EQ(m.edges.size(), 15u);
  EXPECT_EQ(m.compute_seconds[9], (std::vector<double>{21, 7, 16}));
  const DagInstance instance = cost_matrix_instance(m);
  EXPECT_EQ(instance.comm_seconds(0, 0, 1), 18.0);  // T1 -> T2
  EXPECT_EQ(instance.comm_seconds(0, 2, 2), 0.0);
  EXPECT_NEAR(instance.mean_compute_seconds(0), 13.0, 1e-12);
  // The simulator's view: explicit costs per device, 1 B/s links, bytes = cost.
  const Cluster cluster = cost_matrix_cluster(m);
  const Job job = cost_matrix_job(m);
  const RooflineModel perf(cluster);
  EXPECT_EQ(perf.task_seconds(job.tasks[3], cluster.device(1), 0), 8.0);
  EXPECT_EQ(perf.transfer_seconds(job.edges[0].bytes, 0, 2), 18.0);
}

const std::string header =
    "name: t\ndevices: [P1, P2]\ntasks:\n  - {name: A, costs: [1, 2]}\n"
    "  - {name: B, costs: [3, ~]}\n";  // B cannot run on P2

TEST(CostMatrixFile, NullCostMeansCannotRun) {
  const CostMatrix m = load_cost_matrix_file(write_temp_file("m.yaml", header));
  EXPECT_EQ(m.compute_seconds[1][1], kCannotRun);
}

TEST(CostMatrixFile, BadFilesAreRejectedWithPositions) {
  expect_input_error(
      [] {
        load_cost_matrix_file(
            write_temp_file("m.yaml", header + "edges:\n  - {from: A, to: Bee, cost: 1}\n"));
      },
      "unknown task 'Bee' (closest: B", 7);
  expect_input_error(
      [] {
        load_cost_matrix_file(write_temp_file("m.yaml", header + "  - {name: C, costs: [1]}\n"));
      },
      "task 'C' needs 2 costs", 6);
  expect_input_error(
      [] {
        load_cost_matrix_file(
            write_temp_file("m.yaml", header + "  - {name: C, costs: [1, -4]}\n"));
      },
      "must be a finite non-negative number", 6);
  expect_input_error(
      [] {
        load_cost_matrix_file(write_temp_file(
            "m.yaml", header + "edges:\n  - {from: A, to: B}\n  - {from: B, to: A}\n"));
      },
      "cycle");
  expect_input_error(
      [] {
        load_cost_matrix_file(write_temp_file("m.yaml", header + "  - {name: A, costs: [1, 1]}\n"));
      },
      "duplicate task 'A'", 6);
  expect_input_error(
      [] { load_cost_matrix_file(write_temp_file("m.yaml", "devices: [P1\ntasks: []\n")); },
      "YAML syntax error: while parsing a flow sequence: did not find expected ',' or ']'", 2);
}

}  // namespace
}  // namespace hetsched
