// The Kubernetes API calls the extender needs, over cpp-httplib's client. One
// connection object, used under a lock (httplib's client is not meant for
// concurrent calls); TLS verification is on whenever the url is https.
#include "hetsched/service/kube/kube_api_client.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <cmath>
#include <mutex>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"

namespace hetsched {

struct KubeApiClient::Connection {
  explicit Connection(const std::string& url) : client(url) {}
  std::mutex mutex;
  httplib::Client client;
};

KubeApiClient::KubeApiClient(KubeApiOptions options) : options_(std::move(options)) {
  const bool http = options_.url.starts_with("http://");
  const bool https = options_.url.starts_with("https://");
  if (!http && !https)
    throw InputError("--kube-api: '" + options_.url +
                     "' is not an http:// or https:// URL of the API server");
  std::string url = options_.url;
  while (url.size() > 8 && url.back() == '/') url.pop_back();
  connection_ = std::make_unique<Connection>(url);
  if (!connection_->client.is_valid())
    throw InputError("--kube-api: '" + options_.url +
                     "' is not a valid URL (http(s)://host[:port])");
  auto& client = connection_->client;
  const auto seconds = static_cast<time_t>(std::floor(options_.timeout_seconds));
  const auto micros =
      static_cast<time_t>((options_.timeout_seconds - static_cast<double>(seconds)) * 1e6);
  client.set_connection_timeout(seconds, micros);
  client.set_read_timeout(seconds, micros);
  client.set_write_timeout(seconds, micros);
  if (!options_.bearer_token.empty()) client.set_bearer_token_auth(options_.bearer_token);
  if (https) {
    client.enable_server_certificate_verification(true);
    if (!options_.ca_file.empty()) client.set_ca_cert_path(options_.ca_file);
  }
}

KubeApiClient::~KubeApiClient() = default;

KubeApiResult KubeApiClient::request(const std::string& method, const std::string& path,
                                     const std::string& body) {
  KubeApiResult result;
  std::lock_guard lock(connection_->mutex);
  auto& client = connection_->client;
  httplib::Result response = method == "POST" ? client.Post(path, body, "application/json")
                                              : client.Get(path, {{"Accept", "application/json"}});
  if (!response) {
    result.error = fmt::format("{} {}{}: {}", method, options_.url, path,
                               httplib::to_string(response.error()));
    return result;
  }
  nlohmann::json decoded = nlohmann::json::parse(response->body, nullptr, false);
  if (response->status < 200 || response->status >= 300) {
    std::string message = response->body.substr(0, 300);
    if (decoded.is_object() && decoded.contains("message") && decoded["message"].is_string())
      message = decoded["message"].get<std::string>();
    result.error = fmt::format("{} {}: HTTP {}: {}", method, path, response->status, message);
    return result;
  }
  if (decoded.is_discarded()) {
    result.error = fmt::format("{} {}: the answer is not JSON", method, path);
    return result;
  }
  result.ok = true;
  result.body = std::move(decoded);
  return result;
}

KubeApiResult KubeApiClient::create_binding(const std::string& pod_namespace,
                                            const std::string& pod_name, const std::string& pod_uid,
                                            const std::string& node) {
  nlohmann::ordered_json binding;
  binding["apiVersion"] = "v1";
  binding["kind"] = "Binding";
  binding["metadata"] = {{"name", pod_name}, {"namespace", pod_namespace}};
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  binding["target"] = {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}};
  return request("POST",
                 fmt::format("/api/v1/namespaces/{}/pods/{}/binding", pod_namespace, pod_name),
                 binding.dump());
}

KubeApiResult KubeApiClient::get_pod(const std::string& pod_namespace,
                                     const std::string& pod_name) {
  return request("GET", fmt::format("/api/v1/namespaces/{}/pods/{}", pod_namespace, pod_name), "");
}

KubeApiResult KubeApiClient::list_nodes() { return request("GET", "/api/v1/nodes", ""); }

KubeApiResult KubeApiClient::list_live_pods() {
  return request(
      "GET", "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
      "");
}

std::string read_kube_token_file(const std::string& path) {
  std::string token = read_text_file(path, "bearer token file");
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(SourcePosition{path, 0, 0}, "the bearer token file is empty");
  const auto last = token.find_last_not_of(" \t\r\n");
  return token.substr(first, last - first + 1);
}

}  // namespace hetsched
