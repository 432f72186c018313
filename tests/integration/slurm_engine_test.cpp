// SlurmEngine against the loopback Slurm testbed (scripts/testbed/slurm.sh): the
// inventory is the testbed's slurm.conf, a launch runs where it was placed in
// Slurm's own view (scontrol), drained and downed nodes are seen as such, failures
// carry Slurm's reason, cancels and restarts (adoption) work.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include "testbed.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::testbed_slurm_options;
using testing::unique_word;

// "scontrol show job <id>" as Field=value pairs: Slurm's own view of a job.
std::map<std::string, std::string> scontrol_show_job(const std::string& job_id) {
  ProcessRequest request;
  request.argv = {"scontrol", "show", "job", job_id};
  request.environment = {{"SLURM_CONF", testing::slurm_conf_path()}};
  const ProcessResult result = run_process(request);
  std::map<std::string, std::string> fields;
  if (!result.succeeded()) return fields;
  static const std::regex pair(R"(([A-Za-z:/]+)=(\S*))");
  for (std::sregex_iterator it(result.standard_output.begin(), result.standard_output.end(), pair),
       end;
       it != end; ++it) {
    fields.emplace((*it)[1].str(), (*it)[2].str());
  }
  return fields;
}

// The final state of task_key, polling the engine until it reports an end.
EngineTaskStatus wait_for_end(SlurmEngine& engine, const std::string& task_key,
                              std::vector<EngineTaskStatus>* seen = nullptr) {
  EngineTaskStatus final_status;
  const bool ended = eventually([&] {
    for (const auto& status : engine.poll()) {
      if (seen) seen->push_back(status);
      if (status.task_key != task_key) continue;
      if (status.state == EngineTaskState::completed || status.state == EngineTaskState::failed ||
          status.state == EngineTaskState::cancelled) {
        final_status = status;
        return true;
      }
    }
    return false;
  });
  EXPECT_TRUE(ended) << task_key << " did not end within the deadline";
  return final_status;
}

struct ConfNode {
  std::string name;
  std::uint32_t cpus = 0;
  std::string gres;
};

std::vector<ConfNode> nodes_in_testbed_conf() {
  std::ifstream conf(testing::slurm_conf_path());
  std::vector<ConfNode> nodes;
  static const std::regex line_pattern(R"(^NodeName=(\S+) .*CPUs=(\d+) .*Gres=(\S+))");
  std::string line;
  while (std::getline(conf, line)) {
    std::smatch match;
    if (std::regex_search(line, match, line_pattern)) {
      nodes.push_back(
          {match[1].str(), static_cast<std::uint32_t>(std::stoul(match[2].str())), match[3].str()});
    }
  }
  return nodes;
}

TEST(SlurmEngineIntegration, InventoryMatchesTheTestbedConfiguration) {
  SlurmEngine engine(testbed_slurm_options(unique_word("inventory")));
  const auto expected = nodes_in_testbed_conf();
  ASSERT_EQ(expected.size(), 3u) << "testbed slurm.conf not found at "
                                 << testing::slurm_conf_path();
  const auto nodes = engine.nodes();
  ASSERT_EQ(nodes.size(), expected.size());
  for (const auto& want : expected) {
    const auto node = std::find_if(nodes.begin(), nodes.end(),
                                   [&](const EngineNode& n) { return n.name == want.name; });
    ASSERT_NE(node, nodes.end()) << want.name;
    EXPECT_EQ(node->state, EngineNodeState::up) << want.name;
    EXPECT_EQ(node->cpus, want.cpus);
    EXPECT_EQ(node->memory_bytes, 65536.0 * 1024 * 1024);
    auto want_devices = parse_slurm_gres(want.gres);
    // Then the node's CPUs, one device each, as cores of the engine's catalog CPU.
    want_devices.push_back({DeviceKind::cpu, cpu_core_model_name("Xeon-8480+"), want.cpus});
    ASSERT_EQ(node->devices.size(), want_devices.size()) << want.name;
    for (std::size_t i = 0; i < want_devices.size(); ++i) {
      EXPECT_EQ(node->devices[i].kind, want_devices[i].kind) << want.name;
      EXPECT_EQ(node->devices[i].model, want_devices[i].model) << want.name;
      EXPECT_EQ(node->devices[i].count, want_devices[i].count) << want.name;
    }
  }
  // The typed GRES became catalog parts.
  const auto device_of = [&](const std::string& name) {
    const auto node = std::find_if(nodes.begin(), nodes.end(),
                                   [&](const EngineNode& n) { return n.name == name; });
    return node->devices.at(0);
  };
  EXPECT_EQ(device_of("node1").model, "H100-SXM");
  EXPECT_EQ(device_of("node1").kind, DeviceKind::gpu);
  EXPECT_EQ(device_of("node1").count, 4u);
  EXPECT_EQ(device_of("node2").model, "A100-80GB");
  EXPECT_EQ(device_of("node3").model, "TPU-v4");
  EXPECT_EQ(device_of("node3").kind, DeviceKind::tpu);
}

TEST(SlurmEngineIntegration, LaunchRunsOnTheChosenNodeWithItsGpusAndCompletes) {
  SlurmEngine engine(testbed_slurm_options(unique_word("launch")));
  EngineLaunch launch;
  launch.task_key = unique_word("job-1/task-0");
  launch.node = "node2";
  launch.kind = DeviceKind::gpu;
  launch.device_model = "A100-80GB";
  launch.device_count = 2;
  launch.expected_seconds = 1.0;
  const std::string job_id = engine.launch(launch);
  ASSERT_FALSE(job_id.empty());

  // Slurm's own view: the job is ours, pinned to node2 with two A100s.
  const auto job = scontrol_show_job(job_id);
  EXPECT_EQ(job.at("JobName"), launch.task_key);
  EXPECT_EQ(job.at("ReqNodeList"), "node2");
  EXPECT_NE(job.at("TresPerNode").find("gpu:a100:2"), std::string::npos) << job.at("TresPerNode");

  std::vector<EngineTaskStatus> seen;
  const auto final_status = wait_for_end(engine, launch.task_key, &seen);
  EXPECT_EQ(final_status.state, EngineTaskState::completed) << final_status.reason;
  EXPECT_EQ(final_status.engine_id, job_id);
  EXPECT_EQ(final_status.node, "node2");
  EXPECT_EQ(scontrol_show_job(job_id).at("NodeList"), "node2");
  EXPECT_EQ(scontrol_show_job(job_id).at("JobState"), "COMPLETED");
  // The end is reported once: later polls no longer mention the task.
  for (const auto& status : engine.poll()) EXPECT_NE(status.task_key, launch.task_key);
}

TEST(SlurmEngineIntegration, FailingCommandIsReportedFailedWithSlurmsReason) {
  SlurmEngine engine(testbed_slurm_options(unique_word("failing")));
  EngineLaunch launch;
  launch.task_key = unique_word("job-2/task-0");
  launch.node = "node3";
  launch.kind = DeviceKind::tpu;
  launch.device_model = "TPU-v4";
  launch.device_count = 1;
  launch.command = "echo working; exit 3";
  const std::string job_id = engine.launch(launch);
  const auto final_status = wait_for_end(engine, launch.task_key);
  EXPECT_EQ(final_status.state, EngineTaskState::failed);
  EXPECT_NE(final_status.reason.find("NonZeroExitCode"), std::string::npos) << final_status.reason;
  EXPECT_NE(final_status.reason.find("exit code 3"), std::string::npos) << final_status.reason;
  EXPECT_EQ(scontrol_show_job(job_id).at("JobState"), "FAILED");
}

TEST(SlurmEngineIntegration, CancelledTaskIsReportedCancelled) {
  SlurmEngine engine(testbed_slurm_options(unique_word("cancel")));
  EngineLaunch launch;
  launch.task_key = unique_word("job-3/task-0");
  launch.node = "node1";
  launch.device_model = "H100-SXM";
  launch.expected_seconds = 600;
  const std::string job_id = engine.launch(launch);
  engine.cancel(launch.task_key);
  const auto final_status = wait_for_end(engine, launch.task_key);
  EXPECT_EQ(final_status.state, EngineTaskState::cancelled);
  EXPECT_EQ(scontrol_show_job(job_id).at("JobState"), "CANCELLED");
}

TEST(SlurmEngineIntegration, DrainedAndDownedNodesAreSeenAsSuch) {
  SlurmEngine engine(testbed_slurm_options(unique_word("drain")));
  const auto state_of = [&](const std::string& name) {
    for (const auto& node : engine.nodes()) {
      if (node.name == name) return node.state;
    }
    ADD_FAILURE() << name << " missing";
    return EngineNodeState::up;
  };
  ASSERT_EQ(state_of("node3"), EngineNodeState::up);
  engine.drain_node("node3", "integration test");
  EXPECT_EQ(state_of("node3"), EngineNodeState::draining);
  engine.resume_node("node3");
  EXPECT_EQ(state_of("node3"), EngineNodeState::up);
  engine.down_node("node3", "integration test");
  EXPECT_EQ(state_of("node3"), EngineNodeState::down);
  engine.resume_node("node3");
  EXPECT_TRUE(eventually([&] { return state_of("node3") == EngineNodeState::up; }));
}

TEST(SlurmEngineIntegration, ARestartedEngineAdoptsTheJobsItsPredecessorLaunched) {
  const std::string tag = unique_word("adopt");
  EngineLaunch launch;
  launch.task_key = unique_word("job-4/task-0");
  launch.node = "node1";
  launch.device_model = "H100-SXM";
  launch.expected_seconds = 0.5;
  std::string job_id;
  {
    SlurmEngine first(testbed_slurm_options(tag));
    job_id = first.launch(launch);
  }
  SlurmEngine second(testbed_slurm_options(tag));
  // Launching the same task again finds it instead of submitting it twice.
  EXPECT_EQ(second.launch(launch), job_id);
  const auto final_status = wait_for_end(second, launch.task_key);
  EXPECT_EQ(final_status.engine_id, job_id);
  EXPECT_EQ(final_status.state, EngineTaskState::completed) << final_status.reason;
}

TEST(SlurmEngineIntegration, RefusedLaunchThrowsEngineError) {
  SlurmEngine engine(testbed_slurm_options(unique_word("refused")));
  EngineLaunch launch;
  launch.task_key = unique_word("job-5/task-0");
  launch.node = "node-that-does-not-exist";
  launch.device_model = "H100-SXM";
  EXPECT_THROW(engine.launch(launch), EngineError);
}

}  // namespace
}  // namespace hetsched
