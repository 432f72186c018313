// ServiceHttpServer: the REST/JSON face of a ControlPlane, on cpp-httplib.
//   GET  /healthz             no authentication
//   GET  /metrics             Prometheus text
//   GET  /v1/nodes            the engine's nodes;  POST /v1/nodes registers nodes (sim engine)
//   POST /v1/jobs[?policy=]   body: workload YAML or JSON; 201 {"ids": [...]}
//   GET  /v1/jobs             summaries;  GET /v1/jobs/{id}: state, placement, history
//   DELETE /v1/jobs/{id}      cancel; 202
// Everything but /healthz needs "Authorization: Bearer <token>" (compared in constant
// time; 401 otherwise). Bodies over the limit get 413; bad input a 4xx JSON answer
// {"error": ..., "field": ...} (a body that is not UTF-8: 400 with its line, column and
// byte offset); unknown routes 404; a follower replica answers writes with 307 to the
// leader. Handlers catch everything, so no request can crash the server: an unexpected
// exception is a 500 {"error", "request_id"} whose detail goes to stderr only. The
// reference with examples is docs/service.md.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace hetsched {

class ControlPlane;

struct HttpServerOptions {
  std::string token;                      // the bearer token; must not be empty
  std::size_t max_body_bytes = 1u << 20;  // larger bodies: 413
  std::size_t threads = 8;                // request-handling threads
};

class ServiceHttpServer {
 public:
  ServiceHttpServer(ControlPlane& control_plane, HttpServerOptions options);
  ~ServiceHttpServer();
  ServiceHttpServer(const ServiceHttpServer&) = delete;
  ServiceHttpServer& operator=(const ServiceHttpServer&) = delete;

  // Binds host:port (port 0: an ephemeral port) and returns the bound port; throws
  // std::runtime_error when the address cannot be bound.
  int bind(const std::string& host, int port);
  // Serves on a background thread until stop().
  void start();
  // Serves on the calling thread until stop() (from another thread or a signal).
  void serve();
  void stop();
  // "http://host:port" once bound.
  const std::string& address() const { return address_; }

 private:
  void install_routes();

  ControlPlane& control_plane_;
  HttpServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string address_;
  std::atomic<std::uint64_t> requests_failed_{0};  // numbers the 500s' request ids
};

// True when a and b are equal, in time that depends only on their lengths.
bool constant_time_equals(const std::string& a, const std::string& b);

}  // namespace hetsched
