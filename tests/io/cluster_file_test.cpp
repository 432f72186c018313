// Tests of the cluster file loader: the examples load with the figures where expected,
// overrides, slices and counts work, JSON is read like YAML, and every kind of bad input
// becomes one InputError with the file, line, column and what was expected.
#include "hetsched/io/cluster_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hetsched/cluster/device_catalog.hpp"
#include "io_test_support.hpp"

namespace hetsched {
namespace {

using test_support::input_error_of;

std::string cluster_error(const std::string& text) {
  return input_error_of([&] { parse_cluster(text, "c.yaml"); });
}

const DeviceSpec& catalog(std::string_view model) {
  const DeviceSpec* part = find_catalog_part(model);
  EXPECT_NE(part, nullptr) << model;
  return *part;
}

constexpr auto kH100 = static_cast<std::size_t>(Precision::fp16);

TEST(ClusterFile, ExampleYamlLoadsWithFiguresWhereExpected) {
  const Cluster cluster = load_cluster_file(HETSCHED_SOURCE_DIR "/examples/cluster.yaml");
  ASSERT_EQ(cluster.node_count(), 7u);
  EXPECT_EQ(cluster.node(0).name, "dgx");
  EXPECT_EQ(cluster.node(4).name, "cpu-0");
  EXPECT_EQ(cluster.node(5).name, "cpu-1");
  EXPECT_EQ(cluster.node(6).name, "edge");
  // 8 H100 + 4 A100 + 7 slices + 4 TPU + 2x2 EPYC + 1 new part.
  EXPECT_EQ(cluster.device_count(), 28u);

  EXPECT_DOUBLE_EQ(cluster.network().latency_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(cluster.network().inter_rack_latency_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(cluster.network().inter_rack_bandwidth, 12.5e9);

  const Node& dgx = cluster.node(0);
  EXPECT_EQ(dgx.rack, "rack0");
  EXPECT_DOUBLE_EQ(dgx.host_memory_bytes, 2048e9);
  EXPECT_DOUBLE_EQ(dgx.nic_bandwidth, 50e9);
  EXPECT_EQ(dgx.link.kind, "nvlink4");
  EXPECT_DOUBLE_EQ(dgx.link.bandwidth, 450e9);
  EXPECT_DOUBLE_EQ(dgx.link.latency_seconds, 2e-6);
  ASSERT_EQ(dgx.devices.size(), 8u);
  EXPECT_EQ(cluster.device(dgx.devices[7]).spec, catalog("H100-SXM"));

  // nvlink3 given without a bandwidth takes the kind's typical figure.
  const Node& a100 = cluster.node(1);
  EXPECT_EQ(a100.link.kind, "nvlink3");
  EXPECT_DOUBLE_EQ(a100.link.bandwidth, 300e9);
  const DeviceSpec& a100_spec = cluster.device(a100.devices[0]).spec;
  EXPECT_EQ(a100_spec.model, "A100-80GB");  // the catalog's spelling
  EXPECT_DOUBLE_EQ(a100_spec.price_per_hour, 2.5);
  EXPECT_DOUBLE_EQ(a100_spec.mtbf_hours, 80000);
  EXPECT_EQ(a100_spec.matrix_flops, catalog("A100-80GB").matrix_flops);

  const Node& inference = cluster.node(2);
  ASSERT_EQ(inference.devices.size(), 7u);
  EXPECT_EQ(cluster.device(inference.devices[0]).spec.model, "H100-SXM/7");

  const Node& tpu = cluster.node(3);
  EXPECT_EQ(tpu.rack, "rack1");
  EXPECT_EQ(tpu.link.kind, "ici");
  EXPECT_EQ(cluster.device(tpu.devices[3]).spec.kind, DeviceKind::tpu);

  const DeviceSpec& epyc = cluster.device(cluster.node(5).devices[1]).spec;
  EXPECT_EQ(epyc.kind, DeviceKind::cpu);
  EXPECT_DOUBLE_EQ(epyc.idle_watts, 90);
  ASSERT_EQ(epyc.pstates.size(), 3u);
  EXPECT_EQ(epyc.pstates[1], (PState{0.8, 0.8, 0.6}));
  EXPECT_DOUBLE_EQ(epyc.peak_watts, catalog("EPYC-9654").peak_watts);

  const DeviceSpec& edge = cluster.device(cluster.node(6).devices[0]).spec;
  EXPECT_EQ(edge.model, "Edge-Accel-1");
  EXPECT_EQ(edge.kind, DeviceKind::gpu);
  EXPECT_DOUBLE_EQ(edge.matrix_flops[static_cast<std::size_t>(Precision::fp16)], 160e12);
  EXPECT_DOUBLE_EQ(edge.matrix_flops[static_cast<std::size_t>(Precision::fp64)], 0);
  EXPECT_DOUBLE_EQ(edge.vector_flops[static_cast<std::size_t>(Precision::fp16)], 20e12);
  EXPECT_EQ(edge.compute_units, 48);
  EXPECT_DOUBLE_EQ(edge.memory_bytes, 24e9);
  EXPECT_DOUBLE_EQ(edge.memory_bandwidth, 600e9);
  EXPECT_DOUBLE_EQ(edge.idle_watts, 15);
  EXPECT_DOUBLE_EQ(edge.peak_watts, 150);
  EXPECT_DOUBLE_EQ(edge.launch_overhead_seconds, 6e-6);
  EXPECT_DOUBLE_EQ(edge.mtbf_hours, 120000);
  EXPECT_DOUBLE_EQ(edge.price_per_hour, 0.6);
  EXPECT_EQ(edge.pstates, std::vector<PState>{PState{}});
}

TEST(ClusterFile, ExampleJsonLoads) {
  const Cluster cluster = load_cluster_file(HETSCHED_SOURCE_DIR "/examples/cluster.json");
  ASSERT_EQ(cluster.node_count(), 3u);
  EXPECT_EQ(cluster.node(1).name, "cpu-0");
  EXPECT_EQ(cluster.node(2).rack, "rack1");
  ASSERT_EQ(cluster.device_count(), 6u);
  EXPECT_DOUBLE_EQ(cluster.device(0).spec.memory_bytes, 94e9);
  EXPECT_DOUBLE_EQ(cluster.node(0).link.bandwidth, 450e9);
  EXPECT_DOUBLE_EQ(cluster.node(0).nic_bandwidth, 25e9);
  EXPECT_EQ(cluster.device(5).spec, catalog("EPYC-9654"));
}

TEST(ClusterFile, AFleetFillsRacksOfNodesPerRack) {
  const Cluster fleet = load_cluster_file(HETSCHED_SOURCE_DIR "/examples/fleet_100k.yaml");
  EXPECT_EQ(fleet.node_count(), 25'000u);
  EXPECT_EQ(fleet.device_count(), 100'000u);
  // 3,125 + 3,125 + 6,250 + 12,500 nodes in racks of 32: 98 + 98 + 196 + 391 racks.
  EXPECT_EQ(fleet.rack_count(), 783u);
  EXPECT_EQ(fleet.node(0).rack, "h100-rack-0");
  EXPECT_EQ(fleet.node(31).rack, "h100-rack-0");
  EXPECT_EQ(fleet.node(32).rack, "h100-rack-1");
  EXPECT_EQ(fleet.node(3124).rack, "h100-rack-97");
  EXPECT_EQ(fleet.node(3125).rack, "a100-rack-0");
  EXPECT_EQ(fleet.rack_index(0), fleet.rack_index(31));
  EXPECT_NE(fleet.rack_index(31), fleet.rack_index(32));

  // Without a rack name, the node's name names the racks.
  const Cluster named = parse_cluster(
      "nodes:\n  - {name: gpu, count: 5, nodes_per_rack: 2, devices: [{model: H100-SXM}]}\n",
      "c.yaml");
  EXPECT_EQ(named.node(4).rack, "gpu-2");
  EXPECT_EQ(named.rack_count(), 3u);
  EXPECT_NE(cluster_error("nodes:\n  - {name: gpu, count: 5, nodes_per_rack: 0, devices: "
                          "[{model: H100-SXM}]}\n")
                .find("c.yaml:2:"),
            std::string::npos);
}

TEST(ClusterFile, JsonAndYamlOfTheSameClusterAreEqual) {
  const Cluster from_yaml = parse_cluster(R"(
network: {latency_us: 3, inter_rack_gbit_s: 50}
nodes:
  - name: n
    count: 2
    link: {kind: PCIe4}
    devices:
      - {model: T4, count: 2, memory_gb: 8}
      - {model: l4, slices: 2}
)",
                                          "c.yaml");
  const Cluster from_json = parse_cluster(R"({
  "network": {"latency_us": 3, "inter_rack_gbit_s": 50},
  "nodes": [{"name": "n", "count": 2, "link": {"kind": "pcie4"},
             "devices": [{"model": "T4", "count": 2, "memory_gb": 8},
                         {"model": "l4", "slices": 2}]}]
})",
                                          "c.json");
  ASSERT_EQ(from_yaml.device_count(), 8u);
  ASSERT_EQ(from_json.device_count(), from_yaml.device_count());
  for (DeviceId d = 0; d < from_yaml.device_count(); ++d) {
    EXPECT_EQ(from_json.device(d).spec, from_yaml.device(d).spec);
    EXPECT_EQ(from_json.device(d).name, from_yaml.device(d).name);
  }
  EXPECT_EQ(from_json.node(1).name, "n-1");
  EXPECT_DOUBLE_EQ(from_json.node(1).link.bandwidth, 32e9);
  EXPECT_EQ(from_yaml.node(1).link.kind, "pcie4");  // kinds are case-insensitive
  EXPECT_DOUBLE_EQ(from_json.network().latency_seconds, 3e-6);
  EXPECT_DOUBLE_EQ(from_json.network().inter_rack_bandwidth, 6.25e9);
}

TEST(ClusterFile, DefaultsApplyWhenFieldsAreOmitted) {
  const Cluster cluster =
      parse_cluster("nodes:\n  - name: solo\n    devices: [{model: T4}]\n", "c");
  ASSERT_EQ(cluster.node_count(), 1u);
  const Node& node = cluster.node(0);
  EXPECT_EQ(node.name, "solo");
  EXPECT_EQ(node.rack, "rack0");
  EXPECT_EQ(node.link.kind, "pcie5");
  EXPECT_DOUBLE_EQ(node.link.bandwidth, 64e9);
  EXPECT_DOUBLE_EQ(node.link.latency_seconds, 2e-6);
  EXPECT_DOUBLE_EQ(node.nic_bandwidth, 12.5e9);
  EXPECT_DOUBLE_EQ(node.host_memory_bytes, 0);
  EXPECT_EQ(cluster.network().latency_seconds, Network{}.latency_seconds);
  ASSERT_EQ(cluster.device_count(), 1u);
  EXPECT_EQ(cluster.device(0).spec, catalog("T4"));
}

TEST(ClusterFile, OverridesWinOverTheCatalog) {
  const Cluster cluster = parse_cluster(R"(
nodes:
  - name: n
    devices:
      - model: H100-SXM
        memory_gb: 96
        matrix_tflops: {bf16: 500}
        peak_watts: 500
        pstates: [{frequency: 1, speed: 1, power: 1}, {frequency: 0.5, speed: 0.5, power: 0.3}]
)",
                                        "c.yaml");
  const DeviceSpec& spec = cluster.device(0).spec;
  const DeviceSpec& part = catalog("H100-SXM");
  EXPECT_DOUBLE_EQ(spec.memory_bytes, 96e9);
  EXPECT_DOUBLE_EQ(spec.matrix_flops[kH100], 500e12);  // bf16 is the fp16 rate
  EXPECT_DOUBLE_EQ(spec.matrix_flops[static_cast<std::size_t>(Precision::fp32)],
                   part.matrix_flops[static_cast<std::size_t>(Precision::fp32)]);
  EXPECT_DOUBLE_EQ(spec.peak_watts, 500);
  EXPECT_DOUBLE_EQ(spec.idle_watts, part.idle_watts);
  EXPECT_DOUBLE_EQ(spec.memory_bandwidth, part.memory_bandwidth);
  EXPECT_EQ(spec.pstates, (std::vector<PState>{{1, 1, 1}, {0.5, 0.5, 0.3}}));
  EXPECT_NE(spec.pstates, part.pstates);
}

TEST(ClusterFile, SlicesDivideTheFigures) {
  const Cluster cluster = parse_cluster(R"(
nodes:
  - name: n
    devices: [{model: H100-SXM, count: 2, slices: 4}]
)",
                                        "c.yaml");
  ASSERT_EQ(cluster.device_count(), 8u);
  const DeviceSpec& part = catalog("H100-SXM");
  for (const Device& device : cluster.devices()) {
    const DeviceSpec& slice = device.spec;
    EXPECT_EQ(slice.model, "H100-SXM/4");
    for (std::size_t p = 0; p < kPrecisionCount; ++p) {
      EXPECT_DOUBLE_EQ(slice.matrix_flops[p], part.matrix_flops[p] / 4);
      EXPECT_DOUBLE_EQ(slice.vector_flops[p], part.vector_flops[p] / 4);
    }
    EXPECT_DOUBLE_EQ(slice.memory_bytes, 20e9);
    EXPECT_DOUBLE_EQ(slice.memory_bandwidth, part.memory_bandwidth / 4);
    EXPECT_DOUBLE_EQ(slice.idle_watts, part.idle_watts / 4);
    EXPECT_DOUBLE_EQ(slice.peak_watts, part.peak_watts / 4);
    EXPECT_DOUBLE_EQ(slice.price_per_hour, part.price_per_hour / 4);
    EXPECT_EQ(slice.compute_units, part.compute_units / 4);
    EXPECT_EQ(slice.pstates, part.pstates);
    EXPECT_DOUBLE_EQ(slice.launch_overhead_seconds, part.launch_overhead_seconds);
    EXPECT_DOUBLE_EQ(slice.mtbf_hours, part.mtbf_hours);
  }
  EXPECT_EQ(cluster.device(7).name, "n/H100-SXM/4#7");
}

TEST(ClusterFile, CountReplicatesNodes) {
  const Cluster cluster = parse_cluster(R"(
nodes:
  - {name: gpu, count: 3, rack: r2, devices: [{model: T4, count: 2}]}
  - {name: other, devices: [{model: L4}]}
)",
                                        "c.yaml");
  ASSERT_EQ(cluster.node_count(), 4u);
  EXPECT_EQ(cluster.node(0).name, "gpu-0");
  EXPECT_EQ(cluster.node(2).name, "gpu-2");
  EXPECT_EQ(cluster.node(3).name, "other");
  EXPECT_EQ(cluster.node(2).rack, "r2");
  EXPECT_EQ(cluster.node(2).devices, (std::vector<DeviceId>{4, 5}));
  EXPECT_EQ(cluster.device(5).node, 2u);
  EXPECT_EQ(cluster.device(5).name, "gpu-2/T4#1");
  EXPECT_EQ(cluster.device(6).spec.model, "L4");
}

TEST(ClusterFile, NodeWithoutDevicesIsAllowedBesideOthers) {
  const Cluster cluster =
      parse_cluster("nodes:\n  - {name: storage}\n  - {name: g, devices: [{model: T4}]}\n", "c");
  EXPECT_EQ(cluster.node_count(), 2u);
  EXPECT_TRUE(cluster.node(0).devices.empty());
}

// ---- bad input ----

TEST(ClusterFileErrors, SyntaxErrorNamesFileLineAndColumn) {
  const std::string message = cluster_error("nodes:\n  - name: a: b\n");
  EXPECT_CONTAINS(message, "c.yaml:2:");
  EXPECT_CONTAINS(message, "YAML syntax error");
  const std::string unclosed = cluster_error("nodes:\n  - name: a\n    devices: [{model: T4}\n");
  EXPECT_CONTAINS(unclosed,
                  "c.yaml:4:1: YAML syntax error: while parsing a flow sequence: did not find "
                  "expected ',' or ']'");
}

TEST(ClusterFileErrors, WrongTypeNamesFieldAndExpectedType) {
  EXPECT_CONTAINS(
      cluster_error("nodes:\n  - name: a\n    devices: [{model: T4, memory_gb: abc}]\n"),
      "c.yaml:3:38: field 'memory_gb' expects a number > 0, got 'abc'");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: [a]\n"),
                  "c.yaml:2:11: field 'name' expects a string, got a list");
  EXPECT_CONTAINS(cluster_error("nodes: {a: 1}\n"), "field 'nodes' expects a list, got a map");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: a\n    devices: [{model: T4, count: {x: 1}}]\n"),
                  "field 'count' expects a whole number from 1 to 4096, got a map");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: a\n    devices: [T4]\n"),
                  "c.yaml:3:15: device expects a map, got 'T4'");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name:\n    devices: [{model: T4}]\n"),
                  "field 'name' expects a string, got nothing");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: ''\n    devices: [{model: T4}]\n"),
                  "field 'name' expects a non-empty string");
}

TEST(ClusterFileErrors, NegativeNumbersAreRejected) {
  EXPECT_CONTAINS(
      cluster_error("nodes:\n  - name: a\n    devices: [{model: T4, idle_watts: -5}]\n"),
      "field 'idle_watts' expects a number >= 0, got '-5'");
  EXPECT_CONTAINS(cluster_error("network: {latency_us: -1}\nnodes: [{name: a}]\n"),
                  "c.yaml:1:23: field 'latency_us' expects a number >= 0, got '-1'");
  EXPECT_CONTAINS(cluster_error("nodes:\n  - {name: a, nic_gbit_s: 0, devices: [{model: T4}]}\n"),
                  "field 'nic_gbit_s' expects a number > 0, got '0'");
  EXPECT_CONTAINS(
      cluster_error("nodes:\n  - name: a\n    devices: [{model: T4, matrix_tflops: {fp32: -1}}]\n"),
      "field 'matrix_tflops.fp32' expects a number >= 0, got '-1'");
}

TEST(ClusterFileErrors, NonFiniteNumbersAreRejected) {
  for (const std::string value :
       {"nan", ".nan", ".NaN", "inf", ".inf", "-.inf", "+.inf", "infinity", "1e999"}) {
    const std::string message = cluster_error(
        "nodes:\n  - name: a\n    devices: [{model: T4, peak_watts: " + value + "}]\n");
    EXPECT_CONTAINS(message, "c.yaml:3:");
    EXPECT_CONTAINS(message, "field 'peak_watts' expects a finite number >= 0, got '" + value);
  }
  // A finite figure beyond any physical quantity is rejected too (its unit conversion
  // would overflow).
  EXPECT_CONTAINS(
      cluster_error("nodes:\n  - name: a\n    devices: [{model: T4, memory_gb: 1e308}]\n"),
      "field 'memory_gb' expects a magnitude of at most 1e+30");
}

TEST(ClusterFileErrors, UnknownDeviceModelListsClosestParts) {
  const std::string message =
      cluster_error("nodes:\n  - name: a\n    devices:\n      - model: H10\n");
  EXPECT_CONTAINS(message,
                  "c.yaml:4:16: unknown device model 'H10' (closest: H100-SXM, P100, V100)");
  EXPECT_CONTAINS(message, "give kind");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: H100-SMX}]}]"),
                  "unknown device model 'H100-SMX' (closest: H100-SXM");
}

TEST(ClusterFileErrors, UnknownFieldsListClosestValidFields) {
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: a\n    countt: 2\n"),
                  "c.yaml:3:5: unknown field 'countt' in node (closest: count");
  EXPECT_CONTAINS(cluster_error("node:\n  - name: a\n"),
                  "c.yaml:1:1: unknown field 'node' in the cluster file (closest: nodes");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, memory_bw: 1}]}]"),
                  "unknown field 'memory_bw' in device (closest: ");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, link: {kind: pcie5, bandwith_gb_s: 1}}]"),
                  "unknown field 'bandwith_gb_s' in link (closest: bandwidth_gb_s");
  EXPECT_CONTAINS(
      cluster_error("nodes: [{name: a, devices: [{model: T4, matrix_tflops: {fp8: 1}}]}]"),
      "unknown field 'fp8' in field 'matrix_tflops' (closest: ");
}

TEST(ClusterFileErrors, UnknownKindsAreRejectedWithClosest) {
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, kind: gpus}]}]"),
                  "unknown device kind 'gpus' (closest: gpu");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, link: {kind: nvlink5}}]"),
                  "unknown link kind 'nvlink5' (closest: nvlink3, nvlink4, pcie5)");
}

TEST(ClusterFileErrors, DuplicateNodeNamesNameBothPositions) {
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: a\n    devices: [{model: T4}]\n  - name: a\n"),
                  "c.yaml:4:11: duplicate node name 'a' (first at line 2, column 11)");
  // A replicated name collides with an explicit one.
  EXPECT_CONTAINS(cluster_error("nodes:\n  - {name: g, count: 2, devices: [{model: T4}]}\n"
                                "  - {name: g-1}\n"),
                  "duplicate node name 'g-1' (first at line 2, column 12)");
}

TEST(ClusterFileErrors, RepeatedFieldIsRejected) {
  EXPECT_CONTAINS(cluster_error("nodes:\n  - name: a\n    name: b\n"),
                  "c.yaml:3:5: field 'name' is given twice in node (first at line 2, column 5)");
}

TEST(ClusterFileErrors, CountsMustBeWholeAndBounded) {
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, count: 2.5, devices: [{model: T4}]}]"),
                  "field 'count' expects a whole number from 1 to 100000, got '2.5'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, count: 0, devices: [{model: T4}]}]"),
                  "field 'count' expects a whole number from 1 to 100000, got '0'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, count: 100001, devices: [{model: T4}]}]"),
                  "got '100001'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, count: 1e300, devices: [{model: T4}]}]"),
                  "got '1e300'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, count: 5000}]}]"),
                  "field 'count' expects a whole number from 1 to 4096, got '5000'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, slices: 1000}]}]"),
                  "field 'slices' expects a whole number from 1 to 128, got '1000'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, count: 4000}, "
                                "{model: L4, count: 100}]}]"),
                  "node 'a' has more than 4096 devices");
  EXPECT_CONTAINS(
      cluster_error("nodes: [{name: a, count: 100000, devices: [{model: T4, count: 11}]}]"),
      "the cluster has more than 1000000 devices");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, count: 60000, devices: [{model: T4}]},\n"
                                "        {name: b, count: 60000}]"),
                  "c.yaml:2:9: the cluster has more than 100000 nodes");
}

TEST(ClusterFileErrors, TighterLimitsCanBePassed) {
  const ClusterFileLimits limits{10, 4, 12};
  EXPECT_CONTAINS(
      input_error_of([&] { parse_cluster("nodes: [{name: a, count: 11}]", "c.yaml", limits); }),
      "field 'count' expects a whole number from 1 to 10, got '11'");
  EXPECT_CONTAINS(input_error_of([&] {
                    parse_cluster("nodes: [{name: a, devices: [{model: T4, count: 5}]}]", "c.yaml",
                                  limits);
                  }),
                  "from 1 to 4, got '5'");
  EXPECT_CONTAINS(input_error_of([&] {
                    parse_cluster("nodes: [{name: a, count: 4, devices: [{model: T4, count: 4}]}]",
                                  "c.yaml", limits);
                  }),
                  "the cluster has more than 12 devices");
  EXPECT_EQ(
      parse_cluster("nodes: [{name: a, count: 3, devices: [{model: T4, count: 4}]}]", "c", limits)
          .device_count(),
      12u);
}

TEST(ClusterFileErrors, EmptyOrMisshapedDocuments) {
  EXPECT_CONTAINS(
      cluster_error(""),
      "c.yaml: the file is empty (it holds no YAML value); expected a map with 'nodes'");
  EXPECT_CONTAINS(cluster_error("# only a comment\n"), "the file is empty");
  EXPECT_CONTAINS(cluster_error("hello"),
                  "expected a map with 'nodes' (and optionally 'network') at the top level, got "
                  "'hello'");
  EXPECT_CONTAINS(cluster_error("- name: a\n"), "at the top level, got a list");
  EXPECT_CONTAINS(cluster_error("network: {}\n"),
                  "the cluster file is missing required field 'nodes'");
  EXPECT_CONTAINS(cluster_error("nodes: []\n"), "field 'nodes' expects at least one node");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a}, {name: b, devices: []}]\n"),
                  "the cluster has no devices");
}

TEST(ClusterFileErrors, NewPartsMustGiveTheirFigures) {
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: X1, kind: gpu, "
                                "memory_bandwidth_gb_s: 1, peak_watts: 1, "
                                "vector_tflops: {fp32: 1}}]}]"),
                  "device model 'X1' is not in the catalog, so it must give field 'memory_gb'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: X1, kind: gpu, memory_gb: 1, "
                                "memory_bandwidth_gb_s: 1, peak_watts: 1}]}]"),
                  "must give matrix_tflops or vector_tflops");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: X1, kind: gpu, memory_gb: 1, "
                                "memory_bandwidth_gb_s: 1, peak_watts: 1, "
                                "matrix_tflops: {fp32: 0}}]}]"),
                  "device model 'X1' has no flop rate above 0");
}

TEST(ClusterFileErrors, InconsistentFiguresAreRejected) {
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, idle_watts: 100}]}]"),
                  "idle_watts (100) exceeds peak_watts (70)");
  EXPECT_CONTAINS(
      cluster_error("nodes: [{name: a, devices: [{model: T4, pstates: [{frequency: 0.5, "
                    "speed: 0.5, power: 0.5}, {frequency: 1, speed: 1, power: 1}]}]}]"),
      "P-state 1 (speed 1) is faster than P-state 0 (speed 0.5)");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, pstates: [{frequency: "
                                "1.5, speed: 1, power: 1}]}]}]"),
                  "field 'frequency' expects a number in (0, 1], got '1.5'");
  EXPECT_CONTAINS(cluster_error("nodes: [{name: a, devices: [{model: T4, pstates: []}]}]"),
                  "field 'pstates' expects at least one P-state");
  EXPECT_CONTAINS(
      cluster_error(
          "nodes: [{name: a, devices: [{model: T4, matrix_tflops: {fp16: 1, bf16: 2}}]}]"),
      "gives both fp16 and bf16");
}

TEST(ClusterFileErrors, UnreadablePathNamesTheFile) {
  const std::string missing =
      input_error_of([] { load_cluster_file("/nonexistent/cluster.yaml"); });
  EXPECT_CONTAINS(missing, "/nonexistent/cluster.yaml: cannot read the file");
  const std::string directory = input_error_of([] { load_cluster_file(HETSCHED_SOURCE_DIR); });
  EXPECT_CONTAINS(directory,
                  std::string(HETSCHED_SOURCE_DIR) + ": cannot read the file: it is a directory");
}

}  // namespace
}  // namespace hetsched
