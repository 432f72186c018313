// KubeApi: the calls the extender makes to a Kubernetes API server — create a pod's
// Binding, read a pod, list nodes and live pods. KubeApiClient speaks them over HTTP(S)
// with a bearer token; the extender only needs this interface.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hetsched {

// The API server's answer to one call: the decoded body when it succeeded, else why not.
struct KubeApiResult {
  bool ok = false;
  nlohmann::json body;
  std::string error;  // "POST .../binding: 409 Conflict: pod is already assigned to node x"
};

class KubeApi {
 public:
  virtual ~KubeApi() = default;
  // POST /api/v1/namespaces/{ns}/pods/{name}/binding with a v1.Binding to `node`.
  virtual KubeApiResult create_binding(const std::string& pod_namespace,
                                       const std::string& pod_name, const std::string& pod_uid,
                                       const std::string& node) = 0;
  // GET /api/v1/namespaces/{ns}/pods/{name}.
  virtual KubeApiResult get_pod(const std::string& pod_namespace, const std::string& pod_name) = 0;
  // GET /api/v1/nodes (a v1.NodeList).
  virtual KubeApiResult list_nodes() = 0;
  // GET /api/v1/pods of pods not yet Succeeded or Failed (a v1.PodList).
  virtual KubeApiResult list_live_pods() = 0;
};

}  // namespace hetsched
