// The `hetsched serve` deployments that the service benchmark and the kill -9 tests start,
// kill and recover, and the small blocking HTTP calls they make to them.
//
// A ServiceDeployment is whatever serves the API: one `hetsched serve` on SQLite restarted
// after the kill (RestartDeployment, "restart"), or several replicas on etcd where a
// follower takes over (ReplicaDeployment, "replica").
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

namespace hetsched {

class ServiceDeployment {
 public:
  virtual ~ServiceDeployment() = default;
  virtual std::string failover_mode() const = 0;  // "restart" or "replica"
  // Base URLs (http://host:port) that may serve now; clients try them in order.
  virtual std::vector<std::string> addresses() const = 0;
  virtual std::string token() const = 0;
  // SIGKILL the process that serves writes now.
  virtual void kill_leader() = 0;
  // After kill_leader: "restart" starts the server again on the same state; "replica"
  // has nothing to do (the survivors elect a leader).
  virtual void recover() = 0;
};

// One `hetsched serve` child on a SQLite file, restarted after a kill.
class RestartDeployment final : public ServiceDeployment {
 public:
  // serve_arguments: the serve flags besides --listen (state, engine, token file...).
  RestartDeployment(std::string cli_path, std::vector<std::string> serve_arguments,
                    std::string token);
  ~RestartDeployment() override;
  std::string failover_mode() const override { return "restart"; }
  std::vector<std::string> addresses() const override;
  std::string token() const override { return token_; }
  void kill_leader() override;
  void recover() override;

 private:
  struct Child;
  std::string cli_path_;
  std::vector<std::string> serve_arguments_;
  std::string token_;
  std::unique_ptr<Child> child_;
};

// Small blocking HTTP calls for benchmarks and tests (cpp-httplib underneath).
struct HttpAnswer {
  int status = 0;  // 0: no answer (connection refused, timeout)
  std::string body;
  std::string location;  // the Location header of a redirect
};
HttpAnswer http_call(const std::string& base_url, const std::string& method,
                     const std::string& path, const std::string& token,
                     const std::string& body = {},
                     const std::string& content_type = "application/yaml");

// A client for repeated calls on one connection, with the timeouts http_call uses.
std::unique_ptr<httplib::Client> make_http_client(const std::string& base_url);
HttpAnswer http_call(httplib::Client& client, const std::string& method, const std::string& path,
                     const std::string& token, const std::string& body = {},
                     const std::string& content_type = "application/yaml");

}  // namespace hetsched
