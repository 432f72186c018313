// The Gavel and Alibaba importers on the real files, and their line-numbered errors.
#include <gtest/gtest.h>

#include "hetsched/core/input_error.hpp"
#include "hetsched/stream/alibaba_trace.hpp"
#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/gavel_trace.hpp"

namespace hetsched {
namespace {

const std::string kData = HETSCHED_DATA_DIR;

TEST(GavelThroughputs, ReadsTheRealTable) {
  const auto table = load_gavel_throughputs(kData + "/gavel/simulation_throughputs.json");
  EXPECT_EQ(table.device_types, (std::vector<std::string>{"K80", "P100", "V100"}));
  EXPECT_EQ(table.job_types.size(), 83u);
  EXPECT_EQ(table.models().size(), 26u);
  const auto resnet = table.find("ResNet-50 (batch size 64)", 1);
  ASSERT_TRUE(resnet.has_value());
  const auto v100 = *table.device_index("v100");
  const auto k80 = *table.device_index("K80");
  EXPECT_NEAR(table.job_types[*resnet].alone[v100], 4.394774823323071, 1e-12);
  EXPECT_NEAR(table.job_types[*resnet].alone[k80], 0.6190282202246573, 1e-12);
  const auto resnet8 = table.find("ResNet-50 (batch size 64)", 8);
  ASSERT_TRUE(resnet8.has_value());
  EXPECT_NEAR(table.job_types[*resnet8].unconsolidated[v100], 19.757330902241037, 1e-9);
  const auto a3c = table.find("A3C", 1);
  ASSERT_TRUE(a3c.has_value());
  const auto shared = table.colocated_rates(*resnet, *a3c, v100);
  ASSERT_TRUE(shared.has_value());
  EXPECT_NEAR(shared->first, 2.950603089845603, 1e-12);
  EXPECT_NEAR(shared->second, 1.6837215567338348, 1e-12);
  EXPECT_FALSE(table.find("A3C", 8).has_value());  // not a distributed job
}

TEST(GavelTrace, ReadsBothLayouts) {
  const auto small = load_gavel_trace(kData + "/gavel/physical_cluster_small_test.trace");
  ASSERT_EQ(small.size(), 20u);
  EXPECT_EQ(small[0].model, "Transformer (batch size 128)");
  EXPECT_EQ(small[0].total_steps, 346);
  EXPECT_EQ(small[0].scale_factor, 2);
  EXPECT_FALSE(small[0].slo_factor.has_value());
  EXPECT_EQ(small[0].arrival_seconds, 0);
  EXPECT_EQ(load_gavel_trace(kData + "/gavel/physical_cluster_minimize_makespan.trace").size(),
            100u);
  const auto msr = load_gavel_trace(kData + "/gavel/msr_seed_0_23dbec.trace");
  ASSERT_EQ(msr.size(), 9u);
  EXPECT_EQ(msr[2].model, "Transformer (batch size 256)");
  EXPECT_EQ(msr[2].total_steps, 19178);
  EXPECT_EQ(msr[2].arrival_seconds, 182095);
  EXPECT_EQ(msr[2].scale_factor, 8);
}

TEST(GavelTrace, WrongFieldCountNamesTheLine) {
  const std::string good = "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\t0\n";
  const std::string bad = "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t0\n";  // 9 fields
  try {
    parse_gavel_trace(good + good + bad, "t.trace");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(std::string(e.what()).find("t.trace:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("got 9"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_gavel_trace("A3C\tcmd\tdir\t-n\t1\tmany\t1\t1\t-1\t0\n", "t"), InputError);
}

TEST(AlibabaTrace, ReadsTheRealFiles) {
  const auto nodes = load_alibaba_nodes(kData + "/alibaba-gpu-2023/openb_node_list_gpu_node.csv");
  ASSERT_EQ(nodes.size(), 1213u);
  EXPECT_EQ(nodes[0].name, "openb-node-0000");
  EXPECT_EQ(nodes[0].gpus, 2);
  EXPECT_EQ(nodes[0].gpu_model, "P100");
  int gpus = 0;
  for (const auto& node : nodes) gpus += node.gpus;
  EXPECT_EQ(gpus, 6212);
  const auto pods = load_alibaba_pods(kData + "/alibaba-gpu-2023/openb_pod_list_default.csv");
  ASSERT_EQ(pods.size(), 8152u);
  EXPECT_EQ(pods[1].gpu_milli, 460);
  EXPECT_EQ(pods[1].creation_seconds, 427061);
  EXPECT_EQ(pods[1].line, 3);
  EXPECT_EQ(pods[100].phase, "Pending");
  EXPECT_EQ(pods[100].scheduled_seconds, -1);
}

TEST(AlibabaTrace, WrongFieldCountNamesTheLine) {
  const std::string text =
      "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,64000,262144,2\n";
  try {
    parse_alibaba_nodes(text, "nodes.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(std::string(e.what()).find("got 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_alibaba_nodes("name,x\n", "nodes.csv"), InputError);  // wrong header
}

}  // namespace
}  // namespace hetsched
