// Tiled factorizations: known task counts and known total work (n³/3 for Cholesky, 2n³/3
// for LU, 4n³/3 for QR, n = tiles × tile size), and the Cholesky DAG is the local
// runtime's, edge for edge (both infer edges through DataflowJob).
#include "hetsched/workload/tiled_factorization.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "hetsched/runtime/runtime_dag.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {
namespace {

double total_flops(const Job& job) {
  double sum = 0;
  for (const Task& t : job.tasks) sum += t.flops;
  return sum;
}

TEST(TiledFactorization, TaskCountsAndTotalWorkAreTheTextbookOnes) {
  for (std::uint32_t tiles : {1u, 2u, 5u, 9u}) {
    const double T = tiles, n = T * 64;
    const Job chol = tiled_factorization_job({TiledFactorization::cholesky, tiles, 64});
    const Job lu = tiled_factorization_job({TiledFactorization::lu, tiles, 64});
    const Job qr = tiled_factorization_job({TiledFactorization::qr, tiles, 64});
    EXPECT_EQ(chol.tasks.size(), tiles * (tiles + 1) * (tiles + 2) / 6);
    EXPECT_EQ(lu.tasks.size(), tiles * (tiles + 1) * (2 * tiles + 1) / 6);
    EXPECT_EQ(qr.tasks.size(), tiles * (tiles + 1) * (2 * tiles + 1) / 6);
    EXPECT_NEAR(total_flops(chol), n * n * n / 3, 1e-9 * n * n * n);
    EXPECT_NEAR(total_flops(lu), 2 * n * n * n / 3, 1e-9 * n * n * n);
    EXPECT_NEAR(total_flops(qr), 4 * n * n * n / 3, 1e-9 * n * n * n);
  }
}

TEST(TiledFactorization, EachIsOneDagWithOneEntryAndOneExit) {
  for (auto kind : {TiledFactorization::cholesky, TiledFactorization::lu, TiledFactorization::qr}) {
    Workload w;
    w.jobs.push_back(tiled_factorization_job({kind, 6, 64}));
    const TaskGraph graph(w);
    std::size_t entries = 0, exits = 0;
    for (TaskIndex t = 0; t < graph.task_count(); ++t) {
      entries += graph.predecessors(t).empty();
      exits += graph.successors(t).empty();
    }
    EXPECT_EQ(entries, 1u) << to_string(kind);
    EXPECT_EQ(exits, 1u) << to_string(kind);
    EXPECT_EQ(graph.topological_order(0).size(), graph.task_count());  // acyclic
  }
}

TEST(TiledFactorization, CholeskyIsTheLocalRuntimesDagEdgeForEdge) {
  const TiledCholesky runtime = make_tiled_cholesky(5, 4, 1);
  const Job twin = tiled_factorization_job({TiledFactorization::cholesky, 5, 4});
  const Job& real = runtime.dag->workload().jobs.front();
  ASSERT_EQ(twin.tasks.size(), real.tasks.size());
  for (std::size_t t = 0; t < twin.tasks.size(); ++t)
    EXPECT_EQ(twin.tasks[t].name, real.tasks[t].name);
  auto edges = [](const Job& job) {
    std::set<std::tuple<std::uint32_t, std::uint32_t, double>> out;
    for (const Edge& e : job.edges) out.emplace(e.from, e.to, e.bytes);
    return out;
  };
  EXPECT_EQ(edges(twin), edges(real));
}

TEST(TiledFactorization, NamesParseBack) {
  for (const std::string& name : tiled_factorization_names())
    EXPECT_EQ(to_string(*parse_tiled_factorization(name)), name);
  EXPECT_FALSE(parse_tiled_factorization("svd"));
}

}  // namespace
}  // namespace hetsched
