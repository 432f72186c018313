// GPU-share placement isolation and the stream workload file.
#include <gtest/gtest.h>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/stream_workload_file.hpp"
#include "hetsched/stream/gpu_share_placement.hpp"

namespace hetsched {
namespace {

AlibabaPod pod(const std::string& name, int gpus, int milli, double from, double to) {
  AlibabaPod p;
  p.name = name;
  p.cpu_milli = 1000;
  p.memory_mib = 1024;
  p.gpus = gpus;
  p.gpu_milli = milli;
  p.creation_seconds = from;
  p.deletion_seconds = to;
  return p;
}

TEST(GpuSharePlacement, SharesNeverExceedOneGpu) {
  const std::vector<AlibabaNode> nodes{{"n0", 64000, 262144, 2, "T4"}};
  // Two 0.6-GPU pods cannot share a GPU, so the whole-GPU pod finds none free and
  // gives up at its deletion time; once the first pod leaves at t=50 a late
  // whole-GPU pod fits after waiting.
  const std::vector<AlibabaPod> pods{pod("a", 1, 600, 0, 50), pod("b", 1, 600, 1, 100),
                                     pod("c", 1, 1000, 2, 10), pod("d", 1, 1000, 20, 200)};
  for (auto policy : {DevicePlacement::best_fit, DevicePlacement::fragmentation_aware}) {
    const GpuShareResult r = simulate_gpu_share(nodes, pods, policy);
    EXPECT_EQ(r.gpu_pods, 4u);
    EXPECT_EQ(r.placed_gpu_pods, 3u);
    EXPECT_NEAR(r.placed_fraction, 2200.0 / 3200.0, 1e-12);
    EXPECT_NEAR(r.avg_wait_seconds, 30.0 / 3.0, 1e-9);  // d waited 30 s
  }
}

TEST(GpuSharePlacement, FragmentationAwareKeepsWholeGpusForWholeGpuPods) {
  // Two nodes of one GPU; most requests are whole GPUs. A 0.3-GPU pod then a
  // 0.5-GPU pod: best fit puts the second on the partly used GPU as well (least
  // free left); so does FGD. Then a whole-GPU pod must still find a free GPU.
  const std::vector<AlibabaNode> nodes{{"n0", 64000, 262144, 1, "T4"},
                                       {"n1", 64000, 262144, 1, "T4"}};
  std::vector<AlibabaPod> pods{pod("a", 1, 300, 0, 100), pod("b", 1, 500, 1, 100),
                               pod("c", 1, 1000, 2, 100)};
  for (int i = 0; i < 6; ++i)
    pods.push_back(pod("w" + std::to_string(i), 1, 1000, 500 + i, 501 + i));
  const GpuShareResult r = simulate_gpu_share(nodes, pods, DevicePlacement::fragmentation_aware);
  EXPECT_EQ(r.placed_gpu_pods, pods.size());
  EXPECT_EQ(r.avg_wait_seconds, 0.0);
}

TEST(StreamWorkloadFile, ReadsJobsAndReportsPositions) {
  const std::string text = R"(kind: stream
cluster:
  devices: {V100: 4, K80: 4}
jobs:
  - {name: a, gang: 2, steps: 1000, rates: {V100: 2, K80: 0.5}, deadline: 3600, user: ann}
  - {name: b, steps: 10, arrival: 5, rates: {H999: 1}}
)";
  const StreamWorkload w = parse_stream_workload(text, "w.yaml");
  ASSERT_EQ(w.cluster.types.size(), 2u);
  EXPECT_EQ(w.cluster.types[0].model, "V100");
  EXPECT_NEAR(w.cluster.types[0].price_per_hour, 0.74, 1e-12);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].gang_size, 2);
  EXPECT_EQ(*w.jobs[0].deadline_seconds, 3600);
  EXPECT_EQ(w.jobs[0].user, "ann");
  EXPECT_EQ(w.jobs[1].steps_per_second.at("H999"), 1);  // kept; rejected at submission
  try {
    parse_stream_workload(
        "kind: stream\ncluster:\n  devices: {V100: 4}\njobs:\n  - {steps: 1, gangs: 2}\n",
        "w.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_NE(std::string(e.what()).find("unknown field 'gangs' in job (closest: gang"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_stream_workload("kind: stream\ncluster:\n  devices: {V1000: 4}\n", "w.yaml"),
               InputError);
}

// Two counts that each fit an int but whose sum does not: refused at the count that
// crosses the limit, instead of a total that wraps around.
TEST(StreamWorkloadFile, TotalDeviceCountIsBounded) {
  try {
    parse_stream_workload(
        "kind: stream\ncluster:\n  devices:\n    V100: 2000000000\n    K80: 2000000000\n"
        "jobs:\n  - {steps: 1, rates: {V100: 1}}\n",
        "w.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 10000000 devices"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hetsched
