// The parts of the Slurm and etcd adapters that need no running daemon: GRES
// parsing and catalog names, the sbatch command a placement becomes, etcd endpoint
// lists and prefix ends, and the process runner the Slurm engine drives tools with.
#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/service/etcd_client.hpp"
#include "hetsched/service/process_runner.hpp"
#include "service/slurm_engine.hpp"

namespace hetsched {
namespace {

TEST(SlurmGres, TypedGpusBecomeCatalogParts) {
  const auto groups = parse_slurm_gres("gpu:h100:8(S:0-1),tpu:v4:4,gpu:a100:2");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].kind, DeviceKind::gpu);
  EXPECT_EQ(groups[0].model, "H100-SXM");
  EXPECT_EQ(groups[0].count, 8u);
  EXPECT_EQ(groups[1].kind, DeviceKind::tpu);
  EXPECT_EQ(groups[1].model, "TPU-v4");
  EXPECT_EQ(groups[1].count, 4u);
  EXPECT_EQ(groups[2].model, "A100-80GB");
  EXPECT_EQ(groups[2].count, 2u);
}

TEST(SlurmCpus, ACpuDeviceIsOneCoreOfTheCatalogCpu) {
  const DeviceSpec* socket = find_catalog_part("Xeon-8480+");
  ASSERT_NE(socket, nullptr);
  const auto core = cpu_core_spec("Xeon-8480+");
  ASSERT_TRUE(core.has_value());
  EXPECT_EQ(core->kind, DeviceKind::cpu);
  EXPECT_EQ(core->model, cpu_core_model_name("Xeon-8480+"));
  EXPECT_EQ(core->compute_units, 1);
  const double cores = socket->compute_units;
  EXPECT_DOUBLE_EQ(core->vector_flops[0] * cores, socket->vector_flops[0]);
  EXPECT_DOUBLE_EQ(core->memory_bandwidth * cores, socket->memory_bandwidth);
  EXPECT_DOUBLE_EQ(core->peak_watts * cores, socket->peak_watts);
  EXPECT_FALSE(cpu_core_spec("H100-SXM").has_value());  // not a CPU
  EXPECT_FALSE(cpu_core_spec("no-such-cpu").has_value());
  // The engine resolves its own core model and nothing else.
  SlurmEngine engine(SlurmEngineOptions{});
  EXPECT_TRUE(engine.device_spec(DeviceKind::cpu, cpu_core_model_name("Xeon-8480+")).has_value());
  EXPECT_FALSE(engine.device_spec(DeviceKind::gpu, cpu_core_model_name("Xeon-8480+")).has_value());
  EXPECT_FALSE(engine.device_spec(DeviceKind::cpu, "Xeon-8480+").has_value());
}

TEST(SlurmGres, UntypedAndUnknownGresKeepSlurmsWords) {
  const auto groups = parse_slurm_gres("tpu:4,gpu:mi300x:2,mps:100,(null)");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].kind, DeviceKind::tpu);
  EXPECT_EQ(groups[0].model, "tpu");
  EXPECT_EQ(groups[0].count, 4u);
  EXPECT_EQ(groups[1].model, "mi300x");
  EXPECT_TRUE(parse_slurm_gres("(null)").empty());
  EXPECT_TRUE(parse_slurm_gres("").empty());
  // A type that names a part of another kind is not taken for it.
  EXPECT_EQ(catalog_model_for_gres(DeviceKind::tpu, "h100"), "h100");
  EXPECT_EQ(catalog_model_for_gres(DeviceKind::gpu, "V100"), "V100");
}

TEST(SlurmEngineCommand, PlacementBecomesSbatchWithNodeAndGres) {
  SlurmEngineOptions options;
  options.job_tag = "hs";
  options.sleep_seconds_per_predicted_second = 0.5;
  SlurmEngine engine(options);
  EngineLaunch launch;
  launch.task_key = "job-7/task-3";
  launch.node = "node2";
  launch.kind = DeviceKind::gpu;
  launch.device_model = "A100-80GB";
  launch.device_count = 2;
  launch.expected_seconds = 3;
  const auto argv = engine.sbatch_arguments(launch);
  const auto has = [&](const std::string& word) {
    return std::find(argv.begin(), argv.end(), word) != argv.end();
  };
  EXPECT_EQ(argv.front(), "sbatch");
  EXPECT_TRUE(has("--parsable"));
  EXPECT_TRUE(has("--nodelist=node2"));
  EXPECT_TRUE(has("--job-name=job-7/task-3"));
  EXPECT_TRUE(has("--comment=hs"));
  // No inventory read yet: the GRES name and count without a type.
  EXPECT_TRUE(has("--gres=gpu:2"));
  EXPECT_TRUE(has("--wrap=exec sleep 1.500"));  // 3 s predicted × 0.5

  launch.kind = DeviceKind::cpu;
  launch.device_count = 4;
  launch.command = "run-my-kernel --size 4096";
  const auto cpu_argv = engine.sbatch_arguments(launch);
  EXPECT_NE(std::find(cpu_argv.begin(), cpu_argv.end(), "--cpus-per-task=4"), cpu_argv.end());
  EXPECT_NE(std::find(cpu_argv.begin(), cpu_argv.end(), "--wrap=run-my-kernel --size 4096"),
            cpu_argv.end());
}

TEST(EtcdClientParts, EndpointsAndPrefixEnds) {
  EXPECT_EQ(EtcdClient::parse_endpoints("etcd://127.0.0.1:2379,10.0.0.2:2380"),
            (std::vector<std::string>{"127.0.0.1:2379", "10.0.0.2:2380"}));
  EXPECT_EQ(EtcdClient::parse_endpoints("h:1"), (std::vector<std::string>{"h:1"}));
  EXPECT_THROW(EtcdClient::parse_endpoints("etcd://"), EtcdError);
  EXPECT_THROW(EtcdClient::parse_endpoints("host"), EtcdError);
  EXPECT_THROW(EtcdClient::parse_endpoints("host:12x"), EtcdError);
  EXPECT_THROW(EtcdClient::parse_endpoints("a:1,,b:2"), EtcdError);
  EXPECT_EQ(EtcdClient::prefix_end("jobs/"), "jobs0");
  EXPECT_EQ(EtcdClient::prefix_end(std::string("a\xff", 2)), "b");
  EXPECT_EQ(EtcdClient::prefix_end(""), std::string(1, '\0'));
}

TEST(EtcdClientParts, UnreachableMembersAreAnErrorNotAHang) {
  // Port 1 on loopback: nothing listens, connections are refused at once.
  EtcdClient client({"127.0.0.1:1", "127.0.0.1:1"});
  try {
    client.put("k", "v");
    FAIL() << "put to an unreachable etcd returned";
  } catch (const EtcdError& error) {
    EXPECT_NE(std::string(error.what()).find("no member answered"), std::string::npos)
        << error.what();
  }
}

TEST(ProcessRunner, CapturesOutputAndExitStatusWithoutAShell) {
  ProcessRequest request;
  request.argv = {"printf", "%s|%s", "a b", "$HOME;ls"};
  const auto result = run_process(request);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.standard_output, "a b|$HOME;ls");  // nothing expanded

  request.argv = {"sh", "-c", "echo oops >&2; exit 7"};
  const auto failed = run_process(request);
  EXPECT_EQ(failed.exit_code, 7);
  EXPECT_EQ(failed.standard_error, "oops\n");
  EXPECT_FALSE(failed.succeeded());

  request.argv = {"sh", "-c", "echo \"$HETSCHED_PROBE\""};
  request.environment = {{"HETSCHED_PROBE", "set"}};
  EXPECT_EQ(run_process(request).standard_output, "set\n");
}

TEST(ProcessRunner, KillsAProgramThatOutlivesItsDeadline) {
  ProcessRequest request;
  request.argv = {"sleep", "30"};
  request.timeout = std::chrono::milliseconds(100);
  const auto result = run_process(request);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_FALSE(result.succeeded());

  request.argv = {"no-such-program-hetsched"};
  const auto missing = run_process(request);
  EXPECT_FALSE(missing.succeeded());
}

}  // namespace
}  // namespace hetsched
