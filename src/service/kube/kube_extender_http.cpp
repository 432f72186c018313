#include "hetsched/service/kube/kube_extender_http.hpp"

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "hetsched/service/kube/kube_extender.hpp"

namespace hetsched {
namespace {

void send_json(httplib::Response& response, int status, const std::string& body) {
  response.status = status;
  response.set_content(body, "application/json");
}

void send_error(httplib::Response& response, int status, const std::string& message) {
  send_json(response, status, nlohmann::json{{"Error", message}}.dump());
}

}  // namespace

void KubeExtenderHttp::mount(httplib::Server& server, const std::string& prefix) const {
  KubeExtender* extender = extender_;
  const std::size_t limit = max_body_bytes_;
  using Verb = ExtenderAnswer (KubeExtender::*)(std::string_view);
  const auto route = [&server, &prefix, extender, limit](const std::string& name, Verb verb) {
    server.Post(prefix + "/" + name, [extender, limit, verb](const httplib::Request& request,
                                                             httplib::Response& response) {
      if (request.body.size() > limit)
        return send_error(response, 413,
                          "request body of " + std::to_string(request.body.size()) +
                              " bytes is over the limit of " + std::to_string(limit));
      const std::string type = request.get_header_value("Content-Type");
      if (!type.empty() && type.find("json") == std::string::npos)
        return send_error(response, 415, "Content-Type '" + type + "' is not application/json");
      try {
        const ExtenderAnswer answer = std::invoke(verb, *extender, request.body);
        send_json(response, answer.http_status, answer.body);
      } catch (const std::exception& e) {
        send_error(response, 500, std::string("internal error: ") + e.what());
      }
    });
  };
  route("filter", &KubeExtender::filter);
  route("prioritize", &KubeExtender::prioritize);
  route("bind", &KubeExtender::bind);
  server.Get(prefix + "/healthz", [extender](const httplib::Request&, httplib::Response& response) {
    send_json(response, 200,
              nlohmann::json{{"status", "ok"},
                             {"cached_nodes", extender->cached_node_count()},
                             {"bound_pods", extender->bound_pods().size()}}
                  .dump());
  });
}

}  // namespace hetsched
