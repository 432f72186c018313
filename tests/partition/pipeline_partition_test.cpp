// The pipeline DP against brute force over every contiguous split, and its answers
// to bad input (a layer that fits no device, an empty device set).
#include "hetsched/partition/pipeline_partition.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "hetsched/core/rng.hpp"

namespace hetsched {
namespace {

// Every way to give each device, in order, a (possibly empty) contiguous run of layers.
double brute_force_bottleneck(const std::vector<PipelineLayer>& layers,
                              const std::vector<PipelineDevice>& devices) {
  double best = std::numeric_limits<double>::infinity();
  std::function<void(std::size_t, std::size_t, double)> place =
      [&](std::size_t device, std::size_t first, double worst) {
        if (device == devices.size()) {
          if (first == layers.size()) best = std::min(best, worst);
          return;
        }
        for (std::size_t end = first; end <= layers.size(); ++end)
          place(device + 1, end,
                std::max(worst, pipeline_stage_seconds(layers, first, end, devices[device], {})));
      };
  place(0, 0, 0.0);
  return best;
}

TEST(PipelinePartition, DynamicProgrammeEqualsBruteForceOnSmallInstances) {
  Rng rng(2024);
  int feasible = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PipelineLayer> layers(1 + rng.below(7));
    for (PipelineLayer& l : layers)
      l = PipelineLayer{rng.uniform(1e11, 1e13), rng.uniform(1e6, 1e9), rng.uniform(1e8, 4e9)};
    std::vector<PipelineDevice> devices(1 + rng.below(4));
    for (std::size_t k = 0; k < devices.size(); ++k)
      devices[k] = PipelineDevice{"d" + std::to_string(k), rng.uniform(1e13, 1e15),
                                  rng.uniform(4e9, 1.6e10), rng.uniform(1e9, 1e11), 1e-5};
    const PipelinePartition p = partition_pipeline(layers, devices);
    const double expected = brute_force_bottleneck(layers, devices);
    if (expected == std::numeric_limits<double>::infinity()) {
      EXPECT_FALSE(p.feasible) << "trial " << trial;
      EXPECT_FALSE(p.message.empty());
      continue;
    }
    ++feasible;
    ASSERT_TRUE(p.feasible) << "trial " << trial << ": " << p.message;
    EXPECT_NEAR(p.bottleneck_seconds, expected, 1e-12 * expected) << "trial " << trial;
    // The reported stages cover the layers in order and give the bottleneck.
    std::size_t next = 0;
    double worst = 0;
    for (std::size_t k = 0; k < devices.size(); ++k) {
      EXPECT_EQ(p.first_layer[k], next);
      next = p.end_layer[k];
      worst = std::max(worst, p.stage_seconds[k]);
    }
    EXPECT_EQ(next, layers.size());
    EXPECT_DOUBLE_EQ(worst, p.bottleneck_seconds);
  }
  EXPECT_GT(feasible, 100);  // the memory limits bind sometimes, not always
}

TEST(PipelinePartition, LayerThatFitsNoDeviceIsNamed) {
  std::vector<PipelineLayer> layers{{1e12, 1e6, 1e9}, {1e12, 1e6, 5e10}};
  std::vector<PipelineDevice> devices{{"small", 1e14, 1.6e10, 1e10, 0},
                                      {"big", 1e14, 4e10, 1e10, 0}};
  const PipelinePartition p = partition_pipeline(layers, devices);
  EXPECT_FALSE(p.feasible);
  EXPECT_NE(p.message.find("layer 1"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("fits no device"), std::string::npos) << p.message;
}

TEST(PipelinePartition, EmptyDeviceSetIsAnAnswerNotACrash) {
  const PipelinePartition p = partition_pipeline({{1e12, 1e6, 1e9}}, {});
  EXPECT_FALSE(p.feasible);
  EXPECT_NE(p.message.find("empty"), std::string::npos);
}

TEST(PipelinePartition, FasterDeviceGetsMoreLayers) {
  std::vector<PipelineLayer> layers(12, PipelineLayer{1e12, 0, 1e8});
  std::vector<PipelineDevice> devices{{"fast", 3e14, 8e10, 1e11, 0}, {"slow", 1e14, 8e10, 1e11, 0}};
  const PipelinePartition p = partition_pipeline(layers, devices);
  ASSERT_TRUE(p.feasible);
  EXPECT_EQ(p.end_layer[0] - p.first_layer[0], 9u);  // 3:1 speed, 9 and 3 layers balance exactly
  EXPECT_NEAR(p.bottleneck_seconds, 9 * 1e12 / 3e14, 1e-12);
}

}  // namespace
}  // namespace hetsched
