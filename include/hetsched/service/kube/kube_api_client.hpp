// KubeApiClient: KubeApi over HTTP or HTTPS (cpp-httplib's client, OpenSSL) with a
// bearer token, the way an in-cluster service account talks to the API server
// (token from /var/run/secrets/kubernetes.io/serviceaccount/token, CA from ca.crt).
#pragma once

#include <memory>
#include <string>

#include "hetsched/service/kube/kube_api.hpp"

namespace hetsched {

struct KubeApiOptions {
  std::string url;           // "https://10.96.0.1:443" or "http://127.0.0.1:8001"
  std::string bearer_token;  // sent as "Authorization: Bearer <token>" when not empty
  std::string ca_file;       // PEM bundle to verify the server; empty: the system's
  double timeout_seconds = 10;
};

class KubeApiClient final : public KubeApi {
 public:
  // Throws InputError when the url is not http(s)://host[:port].
  explicit KubeApiClient(KubeApiOptions options);
  ~KubeApiClient() override;
  KubeApiClient(const KubeApiClient&) = delete;
  KubeApiClient& operator=(const KubeApiClient&) = delete;

  KubeApiResult create_binding(const std::string& pod_namespace, const std::string& pod_name,
                               const std::string& pod_uid, const std::string& node) override;
  KubeApiResult get_pod(const std::string& pod_namespace, const std::string& pod_name) override;
  KubeApiResult list_nodes() override;
  KubeApiResult list_live_pods() override;

 private:
  KubeApiResult request(const std::string& method, const std::string& path,
                        const std::string& body);

  KubeApiOptions options_;
  struct Connection;
  std::unique_ptr<Connection> connection_;
};

// Reads a token file (surrounding whitespace trimmed); InputError when unreadable or empty.
std::string read_kube_token_file(const std::string& path);

}  // namespace hetsched
