// ServiceHttpServer: the REST/JSON face of a ControlPlane, on cpp-httplib.
//   GET  /healthz             no authentication
//   GET  /metrics             Prometheus text
//   GET  /v1/nodes            the engine's nodes;  POST /v1/nodes registers nodes (sim engine)
//   POST /v1/jobs[?policy=]   body: workload YAML or JSON; 201 {"ids": [...]}
//   GET  /v1/jobs             summaries;  GET /v1/jobs/{id}: state, placement, history
//   DELETE /v1/jobs/{id}      cancel; 202
//   GET  /v1/events           server-sent events (text/event-stream): a snapshot, then an
//                             event per change of a job, the nodes or the metrics, and a
//                             keep-alive comment when quiet (service_event_stream.hpp)
//   GET  /                    the dashboard: one self-contained page, no data in it; its
//                             script asks for the token and calls the API with it
// Everything but /healthz and / needs "Authorization: Bearer <token>" (compared in constant
// time; 401 otherwise). Bodies over the limit get 413; bad input a 4xx JSON answer
// {"error": ..., "field": ...} (a body that is not UTF-8: 400 with its line, column and
// byte offset); unknown routes 404; a follower replica answers writes with 307 to the
// leader. Handlers catch everything, so no request can crash the server: an unexpected
// exception is a 500 {"error", "request_id"} whose detail goes to stderr only. The
// reference with examples is docs/service.md.
//
// Connections cannot starve the server. Each connection has a thread of its own while it
// lives (threads start on demand, up to the connection bound, and retire when idle), so a
// new client never waits behind held ones. A connection is closed when no request starts
// within `idle_seconds`, and when a request's head (request line and headers) is not
// complete `request_head_seconds` after its first byte (408 then; a slowloris client
// sending a byte a second is cut there). Beyond `max_connections` in all, or
// `max_connections_per_address` from one client address (an IPv6 client: its /64), a new
// connection gets 503 {"error": "too many connections ..."} with Retry-After and is closed
// unread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace hetsched {

class ControlPlane;

struct HttpServerOptions {
  std::string token;                      // the bearer token; must not be empty
  std::size_t max_body_bytes = 1u << 20;  // larger bodies: 413
  std::size_t threads = 8;                // threads kept ready (more start on demand)
  // Open connections at most, in all and from one client address; beyond: 503. The total
  // is lowered to what the open-file limit leaves room for (see max_connections()).
  std::size_t max_connections = 4096;
  std::size_t max_connections_per_address = 256;
  double idle_seconds = 5;           // a connection without a request starting is closed
  double request_head_seconds = 10;  // from a request's first byte to its last header: 408
  // Open GET /v1/events streams at most (each holds its connection's thread); beyond: 503.
  // Lowered to half the connection bound when that is smaller.
  std::size_t max_event_streams = 32;
  double event_keepalive_seconds = 15;  // a comment line on a quiet event stream
};

// What the connection guard has seen since the server started.
struct HttpConnectionCounts {
  std::size_t open = 0;                     // connections served now
  std::uint64_t refused = 0;                // 503s for the connection bounds
  std::uint64_t request_head_timeouts = 0;  // closed at the request-head deadline
};

class GuardedHttpServer;  // httplib::Server with the connection guard (in the .cpp)
class ServiceEventHub;

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
  // The bound on connections in force: options.max_connections, or less when the
  // process's open-file limit (RLIMIT_NOFILE) leaves room for fewer.
  std::size_t max_connections() const;
  HttpConnectionCounts connection_counts() const;
  // GET /v1/events streams open now.
  std::size_t event_streams() const;

 private:
  void install_routes();
  void install_request_guards();
  void install_status_routes();
  void install_node_routes();
  void install_job_routes();
  void install_dashboard_routes();

  ControlPlane& control_plane_;
  HttpServerOptions options_;
  std::unique_ptr<GuardedHttpServer> server_;
  // Wakes the event streams; shared with the control plane's change listener, which may
  // outlive the server.
  std::shared_ptr<ServiceEventHub> events_;
  std::thread thread_;
  std::string address_;
  std::atomic<std::uint64_t> requests_failed_{0};  // numbers the 500s' request ids
};

// Raises this process's soft limit on open files (RLIMIT_NOFILE) to its hard limit, so
// that a server or a load generator can hold thousands of sockets; returns the soft limit
// now.
std::size_t raise_open_file_limit();

// True when a and b are equal, in time that depends only on their lengths.
bool constant_time_equals(const std::string& a, const std::string& b);

}  // namespace hetsched
