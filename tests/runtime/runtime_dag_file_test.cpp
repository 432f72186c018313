#include "hetsched/io/runtime_dag_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../support/cli_runner.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched {
namespace {

bool has_edge(const RuntimeDag& dag, std::uint32_t from, std::uint32_t to) {
  const auto& edges = dag.workload().jobs.front().edges;
  return std::any_of(edges.begin(), edges.end(),
                     [&](const Edge& e) { return e.from == from && e.to == to; });
}

std::string error_of(const std::string& text) {
  try {
    parse_runtime_dag(text, "dag.yaml", 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuntimeDagFileTest, DependenciesFollowNamedDataAndAfter) {
  const auto dag = parse_runtime_dag(R"(jobs:
  - name: j
    tasks:
      - {name: f, kernel: potrf, size: 32, data: [A]}
      - {name: t, kernel: trsm, size: 32, data: [A, B]}
      - {name: s, kernel: sort, size: 1024}
      - {name: g, kernel: gemm, size: 16, after: [s]}
    edges:
      - {from: f, to: s}
)",
                                     "dag.yaml", 1);
  ASSERT_EQ(dag->workload().task_count(), 4u);
  EXPECT_TRUE(has_edge(*dag, 0, 1));   // t reads A, which f wrote
  EXPECT_TRUE(has_edge(*dag, 2, 3));   // after: [s]
  EXPECT_TRUE(has_edge(*dag, 0, 2));   // edges: f -> s
  EXPECT_FALSE(has_edge(*dag, 1, 2));  // no shared data, no edge
  EXPECT_EQ(dag->calls()[1].kernel, KernelId::trsm);
  EXPECT_EQ(dag->calls()[1].n, 32u);
  EXPECT_EQ(dag->calls()[0].handles[0], dag->calls()[1].handles[0]);  // the same A
  EXPECT_EQ(dag->data().count(), 2u + 1u + 3u);                       // A, B; keys; gemm's own
}

TEST(RuntimeDagFileTest, UnknownKernelNamesTheClosestOnes) {
  const std::string error = error_of(
      "jobs:\n  - name: j\n    tasks:\n"
      "      - {name: a, kernel: gemn, size: 8}\n");
  EXPECT_NE(error.find("dag.yaml:4:"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown kernel 'gemn'"), std::string::npos) << error;
  EXPECT_NE(error.find("gemm"), std::string::npos) << error;
}

TEST(RuntimeDagFileTest, BadFilesAreOneLineErrorsWithPositions) {
  EXPECT_NE(error_of("jobs:\n  - name: j\n    tasks:\n      - {name: a, kernel: gemm}\n")
                .find("missing required field 'size'"),
            std::string::npos);
  EXPECT_NE(error_of("jobs:\n  - name: j\n    tasks:\n"
                     "      - {name: a, kernel: potrf, size: 8, data: [X]}\n"
                     "      - {name: b, kernel: sort, size: 8, data: [X]}\n")
                .find("data 'X' is used as a key array of size 8 here"),
            std::string::npos);
  EXPECT_NE(error_of("jobs:\n  - name: j\n    tasks:\n"
                     "      - {name: a, kernel: gemm, size: 8, after: [b]}\n"
                     "      - {name: b, kernel: gemm, size: 8}\n")
                .find("only follow earlier tasks"),
            std::string::npos);
  EXPECT_NE(error_of("jobs:\n  - name: j\n    tasks:\n"
                     "      - {name: a, kernel: gemm, size: 8, flops: 3}\n")
                .find("unknown field 'flops'"),
            std::string::npos);
  EXPECT_NE(error_of("jobs:\n  - name: j\n    tasks:\n"
                     "      - {name: a, kernel: gemm, size: 8, data: [A, B]}\n")
                .find("takes 3 data argument(s)"),
            std::string::npos);
  RuntimeDagFileLimits tight;
  tight.max_total_bytes = 1000;
  EXPECT_THROW(parse_runtime_dag("jobs:\n  - name: j\n    tasks:\n"
                                 "      - {name: a, kernel: gemm, size: 64}\n",
                                 "dag.yaml", 1, tight),
               InputError);
}

TEST(RuntimeDagFileCliTest, RunsTheExampleAndRejectsABadKernelWithExitTwo) {
  const std::string example = std::string(HETSCHED_SOURCE_DIR) + "/examples/runtime_dag.yaml";
  const auto ok =
      testing::run_cli("run --workload " + example + " --no-opencl --cpu-workers 2 --format json");
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"tasks_completed\": 8"), std::string::npos) << ok.out;

  const auto path = std::filesystem::temp_directory_path() / "hetsched_bad_runtime_dag.yaml";
  {
    std::ofstream out(path);
    out << "jobs:\n  - name: j\n    tasks:\n      - {name: a, kernel: sortt, size: 8}\n";
  }
  const auto bad = testing::run_cli("run --workload " + path.string() + " --no-opencl");
  std::filesystem::remove(path);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("unknown kernel 'sortt' (closest: sort"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace hetsched
