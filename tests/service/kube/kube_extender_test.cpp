// The extender answering recorded kube-scheduler requests (ExtenderArgs with Nodes
// or NodeNames, ExtenderBindingArgs), with a loopback server playing the Kubernetes
// API server for bind.
#include "hetsched/service/kube/kube_extender.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "hetsched/service/kube/kube_api_client.hpp"
#include "kube_test_support.hpp"

namespace hetsched {
namespace {

using nlohmann::json;
using testing::kube_recording;
using testing::kube_recording_json;
using testing::LoopbackServer;

const char* const kPodUid = "6f1c2a1e-8d4b-4c39-9a57-2f0e6b7d3c11";

std::vector<std::string> item_names(const json& node_list) {
  std::vector<std::string> names;
  for (const auto& item : node_list["items"]) names.push_back(item["metadata"]["name"]);
  return names;
}

std::map<std::string, int> scores_of(const json& host_priority_list) {
  std::map<std::string, int> scores;
  for (const auto& entry : host_priority_list) scores[entry["Host"]] = entry["Score"];
  return scores;
}

// The recorded filter request with the pod's GPU request, uid and annotations changed.
std::string pod_variant(int gpus, const std::string& uid, const json& annotations = json()) {
  json args = kube_recording_json("filter_nodes_request.json");
  json& trainer = args["Pod"]["spec"]["containers"][0]["resources"];
  trainer["requests"]["nvidia.com/gpu"] = std::to_string(gpus);
  trainer["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  args["Pod"]["metadata"]["uid"] = uid;
  args["Pod"]["metadata"]["name"] = "pod-" + uid;
  if (!annotations.is_null()) args["Pod"]["metadata"]["annotations"].update(annotations);
  return args.dump();
}

TEST(KubeExtender, FilterKeepsTheNodesWithTwoFreeNvidiaGpus) {
  KubeExtender extender;
  const ExtenderAnswer answer = extender.filter(kube_recording("filter_nodes_request.json"));
  ASSERT_EQ(answer.http_status, 200) << answer.body;
  const json result = json::parse(answer.body);
  EXPECT_EQ(result["Error"], "");
  EXPECT_TRUE(result["NodeNames"].is_null());
  EXPECT_EQ(item_names(result["Nodes"]), (std::vector<std::string>{"gpu-h100-1", "gpu-a100-1"}));
  // The nodes are echoed whole, as kube-scheduler sent them.
  EXPECT_EQ(result["Nodes"]["items"][0]["metadata"]["labels"]["nvidia.com/gpu.product"],
            "NVIDIA-H100-80GB-HBM3");
  EXPECT_TRUE(result["FailedNodes"].empty());
  const json& unresolvable = result["FailedAndUnresolvableNodes"];
  ASSERT_EQ(unresolvable.size(), 2u);
  EXPECT_EQ(unresolvable["tpu-v5e-1"], "node has no nvidia.com/gpu (the pod needs 2)");
  EXPECT_EQ(unresolvable["cpu-1"], "node has no nvidia.com/gpu (the pod needs 2)");
  EXPECT_EQ(extender.cached_node_count(), 4u);  // learned for later NodeNames requests
}

TEST(KubeExtender, PrioritizeRanksH100AboveA100ForAMatrixKernel) {
  KubeExtender extender;
  const ExtenderAnswer answer = extender.prioritize(kube_recording("filter_nodes_request.json"));
  ASSERT_EQ(answer.http_status, 200) << answer.body;
  const json list = json::parse(answer.body);
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0]["Host"], "gpu-h100-1");  // in the order kube-scheduler sent
  const auto scores = scores_of(list);
  EXPECT_GT(scores.at("gpu-h100-1"), scores.at("gpu-a100-1"));
  EXPECT_GT(scores.at("gpu-a100-1"), 0);
  EXPECT_EQ(scores.at("tpu-v5e-1"), 0);
  EXPECT_EQ(scores.at("cpu-1"), 0);
  for (const auto& [host, score] : scores) {
    EXPECT_GE(score, 0) << host;
    EXPECT_LE(score, kMaxExtenderPriority) << host;
  }
  // greedy-eft (the default policy) chooses the H100, which runs bf16 matmul at 989 TF vs
  // the A100's 312: H100 10, A100 round(10 × t_h100 / t_a100 = 0.315) → 3.
  EXPECT_EQ(scores.at("gpu-h100-1"), 10);
  EXPECT_EQ(scores.at("gpu-a100-1"), 3);
  // Same request, same state: byte-identical answer.
  EXPECT_EQ(extender.prioritize(kube_recording("filter_nodes_request.json")).body, answer.body);
}

TEST(KubeExtender, BranchyCpuPodPrefersTheCpuNodesAndEveryNodeQualifies) {
  json args = kube_recording_json("filter_nodes_request.json");
  json& trainer = args["Pod"]["spec"]["containers"][0]["resources"];
  trainer["requests"].erase("nvidia.com/gpu");
  trainer["limits"].erase("nvidia.com/gpu");
  args["Pod"]["metadata"]["annotations"] = {{"hetsched.io/kernel-class", "branchy"},
                                            {"hetsched.io/flops", "1T"}};
  KubeExtender extender;
  const json filtered = json::parse(extender.filter(args.dump()).body);
  EXPECT_EQ(item_names(filtered["Nodes"]).size(), 4u) << filtered.dump();
  const auto scores = scores_of(json::parse(extender.prioritize(args.dump()).body));
  // EPYC-9654 (AMD label on the H100 node) beats the Xeon on vector fp32 (7.37 vs 7.17 TF).
  EXPECT_GE(scores.at("gpu-h100-1"), scores.at("cpu-1"));
  EXPECT_GT(scores.at("cpu-1"), 0);
}

TEST(KubeExtender, NodeNamesAreAnsweredFromTheNodeCache) {
  KubeExtender extender;
  extender.load_nodes(kube_recording_json("nodes.json"));
  EXPECT_EQ(extender.cached_node_count(), 4u);
  const ExtenderAnswer answer = extender.filter(kube_recording("filter_node_names_request.json"));
  ASSERT_EQ(answer.http_status, 200);
  const json result = json::parse(answer.body);
  EXPECT_EQ(result["Error"], "");
  EXPECT_TRUE(result["Nodes"].is_null());
  EXPECT_EQ(result["NodeNames"], (json{"gpu-h100-1", "gpu-a100-1"}));
  ASSERT_TRUE(result["FailedNodes"].contains("gpu-h100-9"));
  EXPECT_NE(result["FailedNodes"]["gpu-h100-9"].get<std::string>().find("node cache"),
            std::string::npos);
  EXPECT_EQ(result["FailedAndUnresolvableNodes"].size(), 2u);

  const auto scores = scores_of(
      json::parse(extender.prioritize(kube_recording("filter_node_names_request.json")).body));
  EXPECT_GT(scores.at("gpu-h100-1"), scores.at("gpu-a100-1"));
  EXPECT_EQ(scores.at("gpu-h100-9"), 0);
}

TEST(KubeExtender, NodeNamesWithAnEmptyCacheFailEveryNodeWithAReason) {
  KubeExtender extender;
  const json result =
      json::parse(extender.filter(kube_recording("filter_node_names_request.json")).body);
  EXPECT_EQ(result["NodeNames"], json::array());
  EXPECT_EQ(result["FailedNodes"].size(), 5u);
}

TEST(KubeExtender, AllowedModelsAndPrecisionExcludeNodesUnresolvably) {
  KubeExtender extender;
  const json only_a100 = json::parse(
      extender.filter(pod_variant(2, "u-a100", {{"hetsched.io/allowed-models", "A100-80GB"}}))
          .body);
  EXPECT_EQ(item_names(only_a100["Nodes"]), std::vector<std::string>{"gpu-a100-1"});
  EXPECT_NE(only_a100["FailedAndUnresolvableNodes"]["gpu-h100-1"].get<std::string>().find(
                "hetsched.io/allowed-models"),
            std::string::npos);

  const json too_big = json::parse(
      extender.filter(pod_variant(2, "u-big", {{"hetsched.io/device-memory", "100Gi"}})).body);
  EXPECT_TRUE(too_big["Nodes"]["items"].empty());
  EXPECT_NE(too_big["FailedAndUnresolvableNodes"]["gpu-h100-1"].get<std::string>().find(
                "memory on each device"),
            std::string::npos);

  // A TPU pod in fp64: TPUs have no fp64.
  json tpu = kube_recording_json("filter_nodes_request.json");
  json& resources = tpu["Pod"]["spec"]["containers"][0]["resources"];
  resources["requests"].erase("nvidia.com/gpu");
  resources["limits"] = {{"google.com/tpu", "4"}};
  tpu["Pod"]["metadata"]["annotations"]["hetsched.io/precision"] = "fp64";
  const json tpu_result = json::parse(extender.filter(tpu.dump()).body);
  EXPECT_EQ(tpu_result["FailedAndUnresolvableNodes"]["tpu-v5e-1"], "TPU-v5e does not support fp64");
  EXPECT_EQ(tpu_result["FailedAndUnresolvableNodes"]["gpu-h100-1"],
            "node has no google.com/tpu (the pod needs 4)");
}

TEST(KubeExtender, UnknownResourceNamesAreLeftToKubeScheduler) {
  json args = kube_recording_json("filter_nodes_request.json");
  json& requests = args["Pod"]["spec"]["containers"][0]["resources"]["requests"];
  requests["example.com/fpga"] = "1";
  requests["hugepages-2Mi"] = "not-a-quantity-but-not-ours";
  requests["nvidia.com/mig-1g.10gb"] = "1";
  KubeExtender extender;
  const json result = json::parse(extender.filter(args.dump()).body);
  EXPECT_EQ(result["Error"], "");
  EXPECT_EQ(item_names(result["Nodes"]), (std::vector<std::string>{"gpu-h100-1", "gpu-a100-1"}));
}

TEST(KubeExtender, BindWithoutAnApiServerLeavesBindingToKubeScheduler) {
  KubeExtender extender;
  extender.filter(kube_recording("filter_nodes_request.json"));
  const ExtenderAnswer answer = extender.bind(kube_recording("bind_request.json"));
  EXPECT_EQ(answer.http_status, 200);
  const std::string error = json::parse(answer.body)["Error"];
  EXPECT_NE(error.find("binding is left to kube-scheduler"), std::string::npos);
  EXPECT_NE(error.find("bindVerb"), std::string::npos);
  EXPECT_TRUE(extender.bound_pods().empty());
}

// A loopback stand-in for the API server's pods/binding subresource.
struct FakeApiServer {
  LoopbackServer loopback;
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> posts;  // path, body
  std::vector<std::string> authorizations;
  int status = 201;
  std::string answer = R"({"kind":"Status","apiVersion":"v1","status":"Success","code":201})";

  FakeApiServer() {
    loopback.server().Post(R"(/api/v1/namespaces/([a-z0-9.-]+)/pods/([a-z0-9.-]+)/binding)",
                           [this](const httplib::Request& request, httplib::Response& response) {
                             std::lock_guard lock(mutex);
                             posts.emplace_back(request.path, request.body);
                             authorizations.push_back(request.get_header_value("Authorization"));
                             response.status = status;
                             response.set_content(answer, "application/json");
                           });
    loopback.server().Get(R"(/api/v1/namespaces/ml/pods/train-llm-0)",
                          [](const httplib::Request&, httplib::Response& response) {
                            response.set_content(
                                kube_recording_json("filter_nodes_request.json")["Pod"].dump(),
                                "application/json");
                          });
    loopback.start();
  }
};

TEST(KubeExtender, BindPostsTheBindingAndHoldsTheGpusUntilThePodEnds) {
  FakeApiServer api_server;
  KubeApiClient api(KubeApiOptions{api_server.loopback.url(), "test-token", "", 5});
  KubeExtender extender(&api);
  ASSERT_EQ(json::parse(extender.filter(kube_recording("filter_nodes_request.json")).body)["Error"],
            "");
  const ExtenderAnswer answer = extender.bind(kube_recording("bind_request.json"));
  ASSERT_EQ(answer.http_status, 200);
  EXPECT_EQ(json::parse(answer.body), (json{{"Error", ""}}));

  ASSERT_EQ(api_server.posts.size(), 1u);
  EXPECT_EQ(api_server.posts[0].first, "/api/v1/namespaces/ml/pods/train-llm-0/binding");
  EXPECT_EQ(api_server.authorizations[0], "Bearer test-token");
  const json binding = json::parse(api_server.posts[0].second);
  EXPECT_EQ(binding["apiVersion"], "v1");
  EXPECT_EQ(binding["kind"], "Binding");
  EXPECT_EQ(binding["metadata"]["name"], "train-llm-0");
  EXPECT_EQ(binding["metadata"]["namespace"], "ml");
  EXPECT_EQ(binding["metadata"]["uid"], kPodUid);
  EXPECT_EQ(binding["target"],
            (json{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "gpu-h100-1"}}));

  const auto bound = extender.bound_pods();
  ASSERT_EQ(bound.size(), 1u);
  EXPECT_EQ(bound[0].uid, kPodUid);
  EXPECT_EQ(bound[0].node, "gpu-h100-1");
  EXPECT_EQ(bound[0].accelerator_resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(bound[0].accelerator_count, 2);
  EXPECT_DOUBLE_EQ(bound[0].cpu_cores, 8.25);

  // Seven more GPUs do not fit beside the two bound; preemption could help (FailedNodes).
  const json seven = json::parse(extender.filter(pod_variant(7, "u-seven")).body);
  EXPECT_EQ(item_names(seven["Nodes"]), std::vector<std::string>{"gpu-a100-1"});
  EXPECT_EQ(seven["FailedNodes"]["gpu-h100-1"],
            "6 of 8 nvidia.com/gpu free (2 held by pods hetsched bound), the pod needs 7");
  // Six still fit in the six free: one slot, still the earliest finish.
  const auto scores = scores_of(json::parse(extender.prioritize(pod_variant(6, "u-six")).body));
  EXPECT_EQ(scores.at("gpu-h100-1"), 10);

  // The pod ended: reconciling with the live pods releases its GPUs.
  EXPECT_EQ(extender.reconcile({"some-other-pod"}), 1u);
  EXPECT_TRUE(extender.bound_pods().empty());
  const json again = json::parse(extender.filter(pod_variant(7, "u-seven")).body);
  EXPECT_EQ(item_names(again["Nodes"]), (std::vector<std::string>{"gpu-h100-1", "gpu-a100-1"}));
}

TEST(KubeExtender, BindOfAPodNeverFilteredReadsItFromTheApiServer) {
  FakeApiServer api_server;
  KubeApiClient api(KubeApiOptions{api_server.loopback.url(), "", "", 5});
  KubeExtender extender(&api);
  const ExtenderAnswer answer = extender.bind(kube_recording("bind_request.json"));
  EXPECT_EQ(json::parse(answer.body)["Error"], "");
  ASSERT_EQ(extender.bound_pods().size(), 1u);
  EXPECT_DOUBLE_EQ(extender.bound_pods()[0].accelerator_count, 2);
  EXPECT_EQ(api_server.authorizations.at(0), "");  // no token configured, none sent
}

TEST(KubeExtender, RefusedBindingIsReportedAndHoldsNothing) {
  FakeApiServer api_server;
  api_server.status = 409;
  api_server.answer =
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Operation cannot be fulfilled on pods/binding \"train-llm-0\": pod train-llm-0 is already assigned to node \"gpu-a100-1\"","reason":"Conflict","code":409})";
  KubeApiClient api(KubeApiOptions{api_server.loopback.url(), "t", "", 5});
  KubeExtender extender(&api);
  extender.filter(kube_recording("filter_nodes_request.json"));
  const std::string error =
      json::parse(extender.bind(kube_recording("bind_request.json")).body)["Error"];
  EXPECT_NE(error.find("409"), std::string::npos) << error;
  EXPECT_NE(error.find("already assigned"), std::string::npos) << error;
  EXPECT_TRUE(extender.bound_pods().empty());
}

TEST(KubeExtender, BindThatWouldOvercommitANodeIsRefusedBeforeTheApiCall) {
  FakeApiServer api_server;
  KubeApiClient api(KubeApiOptions{api_server.loopback.url(), "t", "", 5});
  KubeExtender extender(&api);
  extender.filter(pod_variant(8, "u-eight"));
  ASSERT_EQ(json::parse(extender
                            .bind(R"({"PodName":"pod-u-eight","PodNamespace":"ml",
      "PodUID":"u-eight","Node":"gpu-h100-1"})")
                            .body)["Error"],
            "");
  extender.filter(kube_recording("filter_nodes_request.json"));
  const std::string error =
      json::parse(extender.bind(kube_recording("bind_request.json")).body)["Error"];
  EXPECT_NE(error.find("0 of 8 nvidia.com/gpu free"), std::string::npos) << error;
  EXPECT_EQ(api_server.posts.size(), 1u);
}

TEST(KubeExtender, UnreachableApiServerIsAnErrorAnswerNotACrash) {
  int port = 0;
  {
    LoopbackServer closed;  // a port that was free a moment ago and is closed now
    port = closed.start();
  }
  KubeApiClient api(KubeApiOptions{"http://127.0.0.1:" + std::to_string(port), "t", "", 2});
  KubeExtender extender(&api);
  extender.filter(kube_recording("filter_nodes_request.json"));
  const std::string error =
      json::parse(extender.bind(kube_recording("bind_request.json")).body)["Error"];
  EXPECT_NE(error.find("binding failed"), std::string::npos) << error;
  EXPECT_TRUE(extender.bound_pods().empty());
}

TEST(KubeApiClient, ListsNodesAndLivePodsForTheCacheAndTheRelease) {
  LoopbackServer api_server;
  std::string field_selector, authorization;
  api_server.server().Get("/api/v1/nodes",
                          [](const httplib::Request&, httplib::Response& response) {
                            response.set_content(kube_recording("nodes.json"), "application/json");
                          });
  api_server.server().Get(
      "/api/v1/pods", [&](const httplib::Request& request, httplib::Response& response) {
        field_selector = request.get_param_value("fieldSelector");
        authorization = request.get_header_value("Authorization");
        response.set_content(R"({"kind":"PodList","items":[{"metadata":{"uid":"u1"}}]})",
                             "application/json");
      });
  api_server.start();
  KubeApiClient api(KubeApiOptions{api_server.url(), "sync-token", "", 5});
  KubeExtender extender(&api);
  const KubeApiResult nodes = api.list_nodes();
  ASSERT_TRUE(nodes.ok) << nodes.error;
  extender.load_nodes(nodes.body, true);
  EXPECT_EQ(extender.cached_node_count(), 4u);
  const KubeApiResult pods = api.list_live_pods();
  ASSERT_TRUE(pods.ok) << pods.error;
  EXPECT_EQ(field_selector, "status.phase!=Succeeded,status.phase!=Failed");
  EXPECT_EQ(authorization, "Bearer sync-token");
  EXPECT_EQ(pods.body["items"][0]["metadata"]["uid"], "u1");
  // A whole-cluster list replaces the cache: nodes gone from it are dropped.
  json one = kube_recording_json("nodes.json");
  one["items"] = json::array({one["items"][0]});
  extender.load_nodes(one, true);
  EXPECT_EQ(extender.cached_node_names(), std::vector<std::string>{"gpu-h100-1"});
  const KubeApiResult missing = api.get_pod("ml", "nobody");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("404"), std::string::npos) << missing.error;
}

TEST(KubeExtender, MalformedRequestsGetClearErrors) {
  KubeExtender extender;
  const auto error_of = [](const ExtenderAnswer& answer) {
    return json::parse(answer.body)["Error"].get<std::string>();
  };
  for (const char* body : {"", "{not json", "[]", "\"Pod\"", "{\"Pod\":"}) {
    EXPECT_EQ(extender.filter(body).http_status, 400) << body;
    EXPECT_EQ(extender.prioritize(body).http_status, 400) << body;
    EXPECT_EQ(extender.bind(body).http_status, 400) << body;
    EXPECT_FALSE(error_of(extender.filter(body)).empty());
  }
  const ExtenderAnswer no_pod = extender.filter(R"({"Nodes":{"items":[]}})");
  EXPECT_EQ(no_pod.http_status, 200);
  EXPECT_EQ(error_of(no_pod), "ExtenderArgs.Pod: missing (expected a v1.Pod)");
  EXPECT_EQ(json::parse(no_pod.body)["FailedNodes"], json::object());
  EXPECT_EQ(extender.prioritize(R"({"Nodes":{"items":[]}})").http_status, 400);

  json args = kube_recording_json("filter_nodes_request.json");
  args["Pod"]["spec"]["containers"][1]["resources"]["requests"]["memory"] = "1.5Qi";
  EXPECT_NE(error_of(extender.filter(args.dump()))
                .find("containers[1].resources.requests.memory: '1.5Qi' is not a Kubernetes "
                      "quantity"),
            std::string::npos);
  args = kube_recording_json("filter_nodes_request.json");
  args.erase("Nodes");
  args.erase("NodeNames");
  EXPECT_EQ(error_of(extender.filter(args.dump())),
            "ExtenderArgs: neither Nodes nor NodeNames is given");
  args["NodeNames"] = {"a", 5};
  EXPECT_NE(error_of(extender.filter(args.dump())).find("NodeNames[1]"), std::string::npos);
  args.erase("NodeNames");
  args["Nodes"] =
      json::parse(R"({"items":[{"metadata":{"name":"n"},"status":{"allocatable":{"cpu":[]}}}]})");
  EXPECT_NE(error_of(extender.filter(args.dump())).find("node 'n'.status.allocatable.cpu"),
            std::string::npos);

  EXPECT_EQ(error_of(extender.bind(R"({"PodName":"p","PodNamespace":"ml","PodUID":"u"})")),
            "ExtenderBindingArgs.Node: missing (expected a string)");
  EXPECT_NE(error_of(extender.bind(
                         R"({"PodName":"../../x","PodNamespace":"ml","PodUID":"u","Node":"n"})"))
                .find("not a Kubernetes object name"),
            std::string::npos);
  EXPECT_NE(error_of(extender.bind(R"({"PodName":"p","PodNamespace":3,"PodUID":"u","Node":"n"})"))
                .find("PodNamespace: expected a string"),
            std::string::npos);
}

TEST(KubeExtender, EveryTruncationOfARecordedRequestIsAnsweredWithJson) {
  KubeExtender extender;
  const std::string full = kube_recording("filter_nodes_request.json");
  for (std::size_t cut = 0; cut < full.size(); cut += 499) {
    const std::string body = full.substr(0, cut);
    for (const ExtenderAnswer& answer :
         {extender.filter(body), extender.prioritize(body), extender.bind(body)}) {
      EXPECT_TRUE(answer.http_status == 200 || answer.http_status == 400);
      EXPECT_FALSE(json::parse(answer.body, nullptr, false).is_discarded()) << cut;
    }
  }
}

}  // namespace
}  // namespace hetsched
