// The random DAG generator against its parameters (Topcuoglu et al. 2002, §5):
// height ≈ √v/α, mean out-degree, CCR (mean communication / mean computation)
// and heterogeneity β (relative spread of a task's costs over the devices:
// uniform over ±β/2, standard deviation β/√12), each within a tolerance; and the
// same seed gives the same DAG.
#include "random_dag.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hetsched {
namespace {

struct Stats {
  double height = 0, out_degree = 0, ccr = 0, relative_spread = 0;
};

Stats measure(const RandomDagParams& params, std::uint64_t seed) {
  Rng rng(seed);
  const RandomDag dag = generate_random_dag(params, rng);
  Stats s;
  s.height = static_cast<double>(dag.level_count);
  std::vector<int> out(params.tasks, 0);
  for (const DagEdge& e : dag.edges) ++out[e.from];
  double degree_sum = 0, non_exit = 0, comm = 0, compute = 0, spread = 0, cells = 0;
  for (std::size_t t = 0; t < params.tasks; ++t) {
    if (dag.level[t] + 1 < dag.level_count) degree_sum += out[t], ++non_exit;
    double mean = 0;
    for (double c : dag.compute_seconds[t]) mean += c;
    mean /= static_cast<double>(params.devices);
    compute += mean;
    if (mean > 1e-9)
      for (double c : dag.compute_seconds[t]) spread += (c / mean - 1) * (c / mean - 1), ++cells;
  }
  for (const DagEdge& e : dag.edges) comm += e.bytes;
  s.out_degree = degree_sum / non_exit;
  s.ccr = (comm / static_cast<double>(dag.edges.size())) /
          (compute / static_cast<double>(params.tasks));
  s.relative_spread = std::sqrt(spread / cells);
  return s;
}

TEST(RandomDag, StatisticsMatchTheParameters) {
  for (const double alpha : {0.5, 1.0, 2.0})
    for (const double ccr : {0.1, 1.0, 10.0})
      for (const double beta : {0.1, 1.0, 2.0}) {
        RandomDagParams p;
        p.tasks = 2000;
        p.shape = alpha;
        p.ccr = ccr;
        p.heterogeneity = beta;
        p.out_degree = 3;
        p.devices = 32;
        SCOPED_TRACE(::testing::Message()
                     << "alpha " << alpha << " ccr " << ccr << " beta " << beta);
        const Stats s = measure(p, 7);
        const double height = std::sqrt(2000.0) / alpha;
        EXPECT_NEAR(s.height, height, 0.2 * height);
        EXPECT_NEAR(s.ccr, ccr, 0.1 * ccr);
        EXPECT_NEAR(s.relative_spread, beta / std::sqrt(12.0), 0.1 * beta / std::sqrt(12.0));
        // The cap by the next level's width and the edge given to orphan tasks move
        // the mean a little; wide levels make both rare.
        EXPECT_NEAR(s.out_degree, 3, 0.5);
      }
}

TEST(RandomDag, SameSeedSameDag) {
  RandomDagParams p;
  p.tasks = 300;
  Rng a(9), b(9), c(10);
  const RandomDag x = generate_random_dag(p, a), y = generate_random_dag(p, b),
                  z = generate_random_dag(p, c);
  EXPECT_EQ(x.compute_seconds, y.compute_seconds);
  ASSERT_EQ(x.edges.size(), y.edges.size());
  for (std::size_t i = 0; i < x.edges.size(); ++i) {
    EXPECT_EQ(x.edges[i].from, y.edges[i].from);
    EXPECT_EQ(x.edges[i].bytes, y.edges[i].bytes);
  }
  EXPECT_NE(x.compute_seconds, z.compute_seconds);
}

}  // namespace
}  // namespace hetsched
