// Reading kube-scheduler's Pod and Node objects: requests summed as Kubernetes sums
// them, allocatable resources, and accelerator labels mapped to catalog parts.
#include <gtest/gtest.h>

#include "hetsched/core/input_error.hpp"
#include "hetsched/service/kube/kube_node.hpp"
#include "hetsched/service/kube/kube_pod.hpp"
#include "kube_test_support.hpp"

namespace hetsched {
namespace {

using testing::kube_recording_json;
constexpr double kGibibytes = 1024.0 * 1024.0 * 1024.0;

TEST(KubeNodeLabels, MapAcceleratorLabelsToCatalogParts) {
  struct Case {
    const char* label;
    DeviceKind kind;
    const char* model;
  };
  const Case cases[] = {
      {"NVIDIA-H100-80GB-HBM3", DeviceKind::gpu, "H100-SXM"},
      {"nvidia-h100-80gb", DeviceKind::gpu, "H100-SXM"},
      {"NVIDIA-H200", DeviceKind::gpu, "H200"},
      {"NVIDIA-A100-SXM4-80GB", DeviceKind::gpu, "A100-80GB"},
      {"nvidia-a100-80gb", DeviceKind::gpu, "A100-80GB"},
      {"NVIDIA-A100-SXM4-40GB", DeviceKind::gpu, "A100-40GB"},
      {"nvidia-tesla-a100", DeviceKind::gpu, "A100-40GB"},
      {"Tesla-V100-SXM2-16GB", DeviceKind::gpu, "V100"},
      {"Tesla-T4", DeviceKind::gpu, "T4"},
      {"nvidia-tesla-t4", DeviceKind::gpu, "T4"},
      {"nvidia-l4", DeviceKind::gpu, "L4"},
      {"tpu-v4-podslice", DeviceKind::tpu, "TPU-v4"},
      {"tpu-v5-lite-podslice", DeviceKind::tpu, "TPU-v5e"},
      {"tpu-v5-lite-device", DeviceKind::tpu, "TPU-v5e"},
      {"tpu-v5p-slice", DeviceKind::tpu, "TPU-v5p"},
      {"H100-SXM", DeviceKind::gpu, "H100-SXM"},  // a catalog name as is
      {"Intel", DeviceKind::cpu, "Xeon-8480+"},
      {"AMD", DeviceKind::cpu, "EPYC-9654"},
  };
  for (const Case& c : cases) {
    const auto part = kube_part_from_label(c.label, c.kind);
    ASSERT_TRUE(part.has_value()) << c.label;
    EXPECT_EQ(part->model, c.model) << c.label;
    EXPECT_EQ(part->kind, c.kind) << c.label;
  }
  const auto a100_40 = kube_part_from_label("nvidia-tesla-a100", DeviceKind::gpu);
  EXPECT_DOUBLE_EQ(a100_40->memory_bytes, 40e9);
  EXPECT_DOUBLE_EQ(a100_40->memory_bandwidth, 1555e9);
  // Parts the catalog does not hold, and a label of another kind, name nothing.
  EXPECT_FALSE(kube_part_from_label("AMD_Instinct_MI300X_OAM", DeviceKind::gpu));
  EXPECT_FALSE(kube_part_from_label("tpu-v6e-slice", DeviceKind::tpu));
  EXPECT_FALSE(kube_part_from_label("NVIDIA-H100-80GB-HBM3", DeviceKind::tpu));
  EXPECT_FALSE(kube_part_from_label("Tesla-T40", DeviceKind::gpu));  // tokens, not substrings
}

TEST(KubeNode, ReadsAllocatableAndAcceleratorsOfTheRecordedNodes) {
  const auto nodes = parse_kube_node_list(kube_recording_json("nodes.json"));
  ASSERT_EQ(nodes.size(), 4u);
  const KubeNode& h100 = nodes[0];
  EXPECT_EQ(h100.name, "gpu-h100-1");
  EXPECT_DOUBLE_EQ(h100.cpu_cores, 191.45);
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 2083000000.0 * 1024);
  ASSERT_EQ(h100.accelerators.size(), 1u);
  const KubeNodeAccelerator& gpus = h100.accelerators.at("nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(gpus.allocatable, 8);
  EXPECT_EQ(gpus.part.model, "H100-SXM");
  EXPECT_TRUE(gpus.known_model);
  EXPECT_EQ(gpus.model_label, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(h100.cpu_part.model, "EPYC-9654");  // feature.node.kubernetes.io vendor AMD
  EXPECT_EQ(nodes[1].accelerators.at("nvidia.com/gpu").part.model, "A100-80GB");
  EXPECT_EQ(nodes[2].accelerators.at("google.com/tpu").part.model, "TPU-v5e");
  EXPECT_DOUBLE_EQ(nodes[2].memory_bytes, 190 * kGibibytes);
  EXPECT_TRUE(nodes[3].accelerators.empty());
  EXPECT_EQ(nodes[3].cpu_part.model, "Xeon-8480+");

  const EngineNode engine = h100.engine_node();
  EXPECT_EQ(engine.name, "gpu-h100-1");
  EXPECT_EQ(engine.cpus, 191u);
  ASSERT_EQ(engine.devices.size(), 1u);
  EXPECT_EQ(engine.devices[0].kind, DeviceKind::gpu);
  EXPECT_EQ(engine.devices[0].model, "H100-SXM");
  EXPECT_EQ(engine.devices[0].count, 8u);
}

TEST(KubeNode, UnknownModelIsScoredAsTheReferencePartAndKeepsItsLabel) {
  const nlohmann::json node = {
      {"metadata",
       {{"name", "mi300-1"},
        {"labels", {{"amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM"}}}}},
      {"status", {{"allocatable", {{"cpu", "128"}, {"memory", "1Ti"}, {"amd.com/gpu", "8"}}}}}};
  const KubeNode parsed = parse_kube_node(node);
  const KubeNodeAccelerator& gpus = parsed.accelerators.at("amd.com/gpu");
  EXPECT_FALSE(gpus.known_model);
  EXPECT_EQ(gpus.part.model, kube_reference_part(DeviceKind::gpu).model);
  EXPECT_EQ(parsed.engine_node().devices.at(0).model, "AMD_Instinct_MI300X_OAM");
}

TEST(KubeNode, CapacityStandsInWhenAllocatableIsAbsentAndBadQuantitiesAreNamed) {
  const nlohmann::json node = {{"metadata", {{"name", "n1"}}},
                               {"status", {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}}}}}};
  EXPECT_DOUBLE_EQ(parse_kube_node(node).cpu_cores, 4);
  nlohmann::json bad = node;
  bad["status"]["capacity"]["memory"] = "16 GB";
  try {
    parse_kube_node(bad);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("node 'n1'.status.capacity.memory"), std::string::npos)
        << e.message();
  }
  EXPECT_THROW(parse_kube_node(nlohmann::json{{"metadata", {{"uid", "x"}}}}), InputError);
  EXPECT_THROW(parse_kube_node_list(nlohmann::json{{"items", "nodes"}}), InputError);
}

TEST(KubePod, SumsContainerRequestsAndReadsTheWorkAnnotations) {
  const KubePod pod = parse_kube_pod(kube_recording_json("filter_nodes_request.json")["Pod"]);
  EXPECT_EQ(pod.name, "train-llm-0");
  EXPECT_EQ(pod.namespace_name, "ml");
  EXPECT_EQ(pod.uid, "6f1c2a1e-8d4b-4c39-9a57-2f0e6b7d3c11");
  EXPECT_DOUBLE_EQ(pod.cpu_cores, 8.25);                     // 8 + 250m
  EXPECT_DOUBLE_EQ(pod.memory_bytes, 64 * kGibibytes + 1.5 * kGibibytes);  // 64Gi + 1.5Gi
  EXPECT_EQ(pod.accelerator_resource(), "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(pod.accelerator_count(), 2);
  EXPECT_EQ(pod.work.kernel, KernelClass::dense_matmul);
  EXPECT_EQ(pod.work.precision, Precision::fp16);  // bf16
  EXPECT_DOUBLE_EQ(pod.work.flops, 4e15);
  EXPECT_DOUBLE_EQ(pod.work.bytes, 200e9);
  EXPECT_DOUBLE_EQ(pod.work.memory_bytes, 60 * kGibibytes);
}

TEST(KubePod, InitContainersLimitsAndOverheadCountAsKubernetesCountsThem) {
  const nlohmann::json pod = nlohmann::json::parse(R"({
    "metadata": {"name": "p", "namespace": "team-a", "uid": "u1"},
    "spec": {
      "initContainers": [{"name": "fetch", "resources": {"requests": {"cpu": "3", "memory": "8Gi"}}}],
      "containers": [
        {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi", "google.com/tpu": "4"}}},
        {"name": "b", "resources": {"requests": {"cpu": "500m", "memory": "2Gi",
                                                 "example.com/fpga": "1", "hugepages-2Mi": "64Mi"}}}],
      "overhead": {"cpu": "250m", "memory": "120Mi"}}})");
  const KubePod parsed = parse_kube_pod(pod);
  // containers: 1 + 0.5 cpu, 3Gi; init: 3 cpu, 8Gi → max, then overhead on top.
  EXPECT_DOUBLE_EQ(parsed.cpu_cores, 3.25);
  EXPECT_DOUBLE_EQ(parsed.memory_bytes, 8 * kGibibytes + 120 * 1024.0 * 1024.0);
  EXPECT_EQ(parsed.accelerator_resource(), "google.com/tpu");  // limit stands for the request
  EXPECT_DOUBLE_EQ(parsed.accelerator_count(), 4);
  EXPECT_EQ(parsed.work.kernel, KernelClass::dense_matmul);  // defaults
  EXPECT_EQ(parsed.work.precision, Precision::fp16);
  EXPECT_DOUBLE_EQ(parsed.work.flops, 1e15);
}

TEST(KubePod, BadAnnotationsAndQuantitiesAreInputErrorsNamingTheField) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_kube_pod(nlohmann::json::parse(text));
    } catch (const InputError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c",
              "resources":{"requests":{"memory":"1.5Qi"}}}]}})")
                .find("spec.containers[0].resources.requests.memory: '1.5Qi'"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"metadata":{"name":"p","annotations":{"hetsched.io/kernel-class":"matmul"}},
              "spec":{"containers":[]}})")
          .find("hetsched.io/kernel-class: unknown kernel class 'matmul' (closest: "),
      std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":"p","annotations":{"hetsched.io/allowed-models":"H10"}},
              "spec":{"containers":[]}})")
                .find("H100-SXM"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":"p","annotations":{"hetsched.io/flops":"-5"}},
              "spec":{"containers":[]}})")
                .find("must not be negative"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":
              {"limits":{"nvidia.com/gpu":"1","amd.com/gpu":"1"}}}]}})")
                .find("requests both"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":7},"spec":{}})").find("Pod.metadata.name"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":"p"},"spec":{"containers":{}}})").find("array"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"metadata":{"name":"p"}})").find("spec: missing"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
