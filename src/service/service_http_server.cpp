// The REST face of the control plane on cpp-httplib: authentication and leader redirects
// before routing, then one handler per route. Every answer is JSON; every refusal is a
// 4xx naming the field. Request bodies are checked as UTF-8 before any parser sees them,
// and an unexpected exception is a 500 carrying a request id, its detail going to stderr
// only, so no library's message reaches a client.
#include "hetsched/service/service_http_server.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/utf8_text.hpp"
#include "hetsched/service/control_plane.hpp"

namespace hetsched {
namespace {

using Json = nlohmann::ordered_json;

void answer(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  // Bodies are UTF-8 by the time anything is stored; should a stored text not be, its bad
  // bytes are written as U+FFFD rather than failing the answer.
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

void error_answer(httplib::Response& res, int status, std::string_view message,
                  std::string_view field = {}) {
  Json body{{"error", message}};
  if (!field.empty()) body["field"] = field;
  answer(res, status, body);
}

// The field an InputError is about: the position's "file" names it for the service's
// own checks ("policy", "engine"); a workload or cluster text error names the body
// and, when the message quotes one, the field inside it.
void input_error_answer(httplib::Response& res, const InputError& e) {
  std::string field = e.where().file.empty() ? "body" : e.where().file;
  static const std::regex quoted_field("field '([^']+)'");
  std::smatch match;
  if (field == "body" && std::regex_search(e.message(), match, quoted_field))
    field = "body." + match[1].str();
  Json body{{"error", e.what()}, {"field", field}};
  if (e.where().line > 0) body["line"] = e.where().line;
  if (e.where().column > 0) body["column"] = e.where().column;
  answer(res, 400, body);
}

// Refuses a body that is not UTF-8: 400 naming the body, with the line, the column (in
// characters, as the parsers count) and the byte offset of the first bad byte. True when
// the body is UTF-8.
bool http_body_is_utf8(const std::string& body, httplib::Response& res) {
  const std::size_t bad = invalid_utf8_offset(body);
  if (bad == std::string_view::npos) return true;
  const std::size_t newline = bad == 0 ? std::string::npos : body.rfind('\n', bad - 1);
  const std::size_t from = newline == std::string::npos ? 0 : newline + 1;
  const std::string_view before(body.data() + from, bad - from);
  const int line = 1 + static_cast<int>(std::count(body.begin(), body.begin() + from, '\n'));
  const int column = 1 + static_cast<int>(std::count_if(before.begin(), before.end(), [](char c) {
                       return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
                     }));
  const SourcePosition where{"body", line, column};
  const std::string message =
      fmt::format("{}the body is not UTF-8: byte 0x{:02X} at byte offset {}, after '{}'",
                  format_position(where), static_cast<unsigned char>(body[bad]), bad,
                  printable_text(before.substr(before.size() > 40 ? before.size() - 40 : 0)));
  answer(
      res, 400,
      {{"error", message}, {"field", "body"}, {"line", line}, {"column", column}, {"offset", bad}});
  return false;
}

// Whether the request's body comes in chunks (Transfer-Encoding: chunked).
bool http_body_is_chunked(const httplib::Request& req) {
  std::string coding = req.get_header_value("Transfer-Encoding");
  std::transform(coding.begin(), coding.end(), coding.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return coding.find("chunked") != std::string::npos;
}

// Reads a request body through httplib's content reader, keeping at most `limit` bytes
// whatever its framing. (httplib compares a Content-Length with set_payload_max_length,
// but reads a chunked body to its end without a bound.) A body over the limit is read on,
// and discarded, up to the limit again, so the connection stays in step for the 413;
// beyond that reading stops and the connection closes. A multipart form holds no
// workload: its parts are discarded the same way and the body is left empty. False with
// the answer set: 413 over the limit, 400 when the framing is broken.
bool http_read_bounded_body(const httplib::Request& req, httplib::Response& res,
                            const httplib::ContentReader& read, std::size_t limit,
                            std::string& body) {
  std::size_t received = 0;
  const std::size_t drain_limit = limit > SIZE_MAX / 2 ? SIZE_MAX : 2 * limit;
  const auto count = [&](std::size_t size) {
    received += std::min(size, SIZE_MAX - received);
    return received <= drain_limit;
  };
  const bool complete = req.is_multipart_form_data()
                            ? read([](const httplib::MultipartFormData&) { return true; },
                                   [&](const char*, std::size_t size) { return count(size); })
                            : read([&](const char* data, std::size_t size) {
                                if (!count(size)) return false;
                                if (received <= limit) body.append(data, size);
                                return true;
                              });
  if (complete && received <= limit) return true;
  body.clear();
  if (!complete) res.set_header("Connection", "close");
  if (received > limit || res.status == 413)
    error_answer(res, 413, "request body too large");
  else
    error_answer(res, 400, "malformed request");
  return false;
}

std::optional<std::uint64_t> parse_id(const std::string& text) {
  std::uint64_t id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

Json node_json(const EngineNode& node) {
  Json devices = Json::array();
  for (const EngineDeviceGroup& g : node.devices)
    devices.push_back({{"kind", to_string(g.kind)}, {"model", g.model}, {"count", g.count}});
  const char* state = node.state == EngineNodeState::up         ? "up"
                      : node.state == EngineNodeState::draining ? "draining"
                                                                : "down";
  return {{"name", node.name},
          {"state", state},
          {"cpus", node.cpus},
          {"memory_bytes", node.memory_bytes},
          {"devices", std::move(devices)}};
}

// The query string's parameters only. (httplib also files the fields of a form-encoded
// body under Request::params, and `curl --data-binary` sends workloads as exactly that.)
httplib::Params query_of(const httplib::Request& req) {
  httplib::Params params;
  const std::size_t mark = req.target.find('?');
  if (mark != std::string::npos)
    httplib::detail::parse_query_text(req.target.substr(mark + 1), params);
  return params;
}

// Rejects query parameters a route does not know, naming the first.
bool only_parameters(const httplib::Request& req, httplib::Response& res,
                     std::initializer_list<std::string_view> known) {
  for (const auto& [name, value] : query_of(req)) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      error_answer(res, 400, fmt::format("unknown query parameter '{}'", name), name);
      return false;
    }
  }
  return true;
}

}  // namespace

bool constant_time_equals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

ServiceHttpServer::ServiceHttpServer(ControlPlane& control_plane, HttpServerOptions options)
    : control_plane_(control_plane),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  if (options_.token.empty()) throw InputError(SourcePosition{"token"}, "the token is empty");
  install_routes();
}

ServiceHttpServer::~ServiceHttpServer() { stop(); }

int ServiceHttpServer::bind(const std::string& host, int port) {
  const int bound =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw std::runtime_error(fmt::format("cannot listen on {}:{}", host, port));
  address_ = fmt::format("http://{}:{}", host, bound);
  return bound;
}

void ServiceHttpServer::start() {
  // The socket already listens (bind); connections made before the accept loop runs wait
  // in the kernel backlog.
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

void ServiceHttpServer::serve() { server_->listen_after_bind(); }

void ServiceHttpServer::stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

void ServiceHttpServer::install_routes() {
  httplib::Server& s = *server_;
  const std::size_t threads = std::max<std::size_t>(1, options_.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_read_timeout(5, 0);
  // Answers are small: sent at once, not held back by Nagle's algorithm for the client's
  // delayed acknowledgement (tens of milliseconds per request on a kept-alive connection).
  s.set_tcp_nodelay(true);
  s.set_write_timeout(5, 0);

  // Authentication and leadership, before any route runs.
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // httplib reads a chunked body without a bound unless the route reads it itself, as
    // the two that take a body do (http_read_bounded_body); anywhere else one is refused.
    if (http_body_is_chunked(req) &&
        !(req.method == "POST" && (req.path == "/v1/jobs" || req.path == "/v1/nodes"))) {
      res.set_header("Connection", "close");
      error_answer(res, 411,
                   "this route takes no chunked body (Transfer-Encoding: chunked); give a "
                   "Content-Length",
                   "Transfer-Encoding");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
    const std::string header = req.get_header_value("Authorization");
    constexpr std::string_view kBearer = "Bearer ";
    const bool authorised = header.size() > kBearer.size() &&
                            header.compare(0, kBearer.size(), kBearer) == 0 &&
                            constant_time_equals(header.substr(kBearer.size()), options_.token);
    if (!authorised) {
      res.set_header("WWW-Authenticate", "Bearer");
      error_answer(res, 401, "a valid 'Authorization: Bearer <token>' header is required",
                   "Authorization");
      return httplib::Server::HandlerResponse::Handled;
    }
    // A follower's control plane does not run (it holds no state of its own): writes
    // and reads of jobs and nodes both go to the leader, which answers from the state.
    const bool to_leader = req.method == "POST" || req.method == "DELETE" || req.method == "PUT" ||
                           req.method == "PATCH" || req.path.rfind("/v1/", 0) == 0;
    if (to_leader && !control_plane_.leadership().is_leader()) {
      const std::optional<std::string> leader = control_plane_.leadership().leader_address();
      if (!leader) {
        error_answer(res, 503, "this replica is a follower and no leader is known");
      } else {
        res.status = 307;
        res.set_header("Location", *leader + req.target);
        answer(res, 307, Json{{"error", "not the leader"}, {"leader", *leader}});
      }
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  // An exception no handler expected: the client gets a 500 with a request id and nothing
  // of the exception's text (a library's message says nothing useful to a client and
  // may echo its input); the detail goes to stderr under the same id.
  s.set_exception_handler(
      [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string detail = "an exception that is not a std::exception";
        try {
          std::rethrow_exception(error);
        } catch (const InputError& e) {
          return input_error_answer(res, e);
        } catch (const std::exception& e) {
          detail = e.what();
        } catch (...) {
        }
        const std::string request_id = fmt::format("{:016x}", ++requests_failed_);
        std::fprintf(stderr, "hetsched serve: request %s (%s %s) failed: %s\n", request_id.c_str(),
                     printable_text(req.method).c_str(), printable_text(req.path).c_str(),
                     printable_text(detail).c_str());
        res.set_header("X-Request-Id", request_id);
        answer(res, 500,
               {{"error", fmt::format("internal error; the server's log has its detail under "
                                      "request id {}",
                                      request_id)},
                {"request_id", request_id}});
      });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* message = res.status == 404   ? "no such route"
                          : res.status == 413 ? "request body too large"
                          : res.status == 400 ? "malformed request"
                                              : "request failed";
    error_answer(res, res.status, message);
  });

  s.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, 200,
           {{"status", "ok"},
            {"leader", control_plane_.leadership().is_leader()},
            {"engine", control_plane_.engine_name()}});
  });

  s.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    res.set_content(to_prometheus_text(control_plane_.metrics()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });

  s.Get("/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    Json nodes = Json::array();
    for (const EngineNode& node : control_plane_.nodes()) nodes.push_back(node_json(node));
    answer(res, 200, {{"engine", control_plane_.engine_name()}, {"nodes", std::move(nodes)}});
  });

  // The routes that take a body read it themselves, so that a chunked one is bounded too.
  s.Post("/v1/nodes", [this](const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader& read) {
    std::string body;
    if (!http_read_bounded_body(req, res, read, options_.max_body_bytes, body)) return;
    if (!only_parameters(req, res, {})) return;
    if (body.empty()) return error_answer(res, 400, "the body must be a cluster file", "body");
    if (!http_body_is_utf8(body, res)) return;
    try {
      answer(res, 201, {{"registered", control_plane_.register_nodes(body)}});
    } catch (const InputError& e) {
      if (e.where().file == "engine") return error_answer(res, 409, e.message(), "engine");
      input_error_answer(res, e);
    }
  });

  s.Post("/v1/jobs", [this](const httplib::Request& req, httplib::Response& res,
                            const httplib::ContentReader& read) {
    std::string body;
    if (!http_read_bounded_body(req, res, read, options_.max_body_bytes, body)) return;
    if (!only_parameters(req, res, {"policy"})) return;
    const httplib::Params query = query_of(req);
    const auto policy_param = query.find("policy");
    const std::string policy = policy_param == query.end() ? std::string() : policy_param->second;
    if (policy_param != query.end() && policy.empty())
      return error_answer(res, 400, "query parameter 'policy' is empty", "policy");
    if (body.empty())
      return error_answer(res, 400, "the body must be a workload (YAML or JSON)", "body");
    if (!http_body_is_utf8(body, res)) return;
    try {
      answer(res, 201, {{"ids", control_plane_.submit(body, policy)}});
    } catch (const InputError& e) {
      input_error_answer(res, e);
    } catch (const StateStoreError& e) {
      error_answer(res, 503, fmt::format("the job was not stored: {}", e.what()));
    }
  });

  s.Get("/v1/jobs", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    Json jobs = Json::array();
    for (const ServiceJobSummary& j : control_plane_.jobs())
      jobs.push_back({{"id", j.id},
                      {"name", j.name},
                      {"policy", j.policy},
                      {"state", to_string(j.state)},
                      {"tasks", j.tasks},
                      {"completed_tasks", j.completed_tasks}});
    answer(res, 200, {{"jobs", std::move(jobs)}});
  });

  s.Get(R"(/v1/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    const auto id = parse_id(req.matches[1]);
    if (!id) return error_answer(res, 400, "the job id must be a non-negative integer", "id");
    const std::optional<ServiceJob> job = control_plane_.job(*id);
    if (!job) return error_answer(res, 404, fmt::format("no job {}", *id), "id");
    answer(res, 200, to_json(*job));
  });

  s.Delete(R"(/v1/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    const auto id = parse_id(req.matches[1]);
    if (!id) return error_answer(res, 400, "the job id must be a non-negative integer", "id");
    CancelOutcome outcome;
    try {
      outcome = control_plane_.cancel(*id);
    } catch (const StateStoreError& e) {
      return error_answer(res, 503, fmt::format("the cancel was not stored: {}", e.what()));
    }
    switch (outcome) {
      case CancelOutcome::not_found:
        return error_answer(res, 404, fmt::format("no job {}", *id), "id");
      case CancelOutcome::already_ended:
        return error_answer(res, 409, fmt::format("job {} has already ended", *id), "id");
      case CancelOutcome::cancelling:
        return answer(res, 202, {{"id", *id}, {"state", "cancelling"}});
    }
  });
}

}  // namespace hetsched
