#include "support/service_deployment.hpp"

#include <stdexcept>

#include "support/serve_process.hpp"

namespace hetsched {

std::unique_ptr<httplib::Client> make_http_client(const std::string& base_url) {
  auto client = std::make_unique<httplib::Client>(base_url);
  client->set_connection_timeout(2, 0);
  client->set_read_timeout(30, 0);
  client->set_write_timeout(30, 0);
  client->set_tcp_nodelay(true);  // as a client of a latency-bound API should
  return client;
}

HttpAnswer http_call(httplib::Client& client, const std::string& method, const std::string& path,
                     const std::string& token, const std::string& body,
                     const std::string& content_type) {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  if (method != "GET" && method != "POST" && method != "DELETE")
    throw std::invalid_argument("http_call: unsupported method " + method);
  const httplib::Result result = method == "GET"    ? client.Get(path, headers)
                                 : method == "POST" ? client.Post(path, headers, body, content_type)
                                                    : client.Delete(path, headers);
  HttpAnswer out;
  if (!result) return out;
  out.status = result->status;
  out.body = result->body;
  out.location = result->get_header_value("Location");
  return out;
}

HttpAnswer http_call(const std::string& base_url, const std::string& method,
                     const std::string& path, const std::string& token, const std::string& body,
                     const std::string& content_type) {
  auto client = make_http_client(base_url);
  return http_call(*client, method, path, token, body, content_type);
}

struct RestartDeployment::Child {
  std::unique_ptr<ServeProcess> process;
};

RestartDeployment::RestartDeployment(std::string cli_path, std::vector<std::string> serve_arguments,
                                     std::string token)
    : cli_path_(std::move(cli_path)),
      serve_arguments_(std::move(serve_arguments)),
      token_(std::move(token)),
      child_(std::make_unique<Child>()) {
  recover();
}

RestartDeployment::~RestartDeployment() = default;

std::vector<std::string> RestartDeployment::addresses() const {
  if (!child_->process) return {};
  return {child_->process->address()};
}

void RestartDeployment::kill_leader() {
  if (child_->process) child_->process->kill_now();
}

void RestartDeployment::recover() {
  child_->process.reset();
  child_->process = std::make_unique<ServeProcess>(cli_path_, serve_arguments_);
}

}  // namespace hetsched
