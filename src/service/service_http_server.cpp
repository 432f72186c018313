// The REST face of the control plane on cpp-httplib: authentication and leader redirects
// before routing, then one handler per route. Every answer is JSON; every refusal is a
// 4xx naming the field. Request bodies are checked as UTF-8 before any parser sees them,
// and an unexpected exception is a 500 carrying a request id, its detail going to stderr
// only, so no library's message reaches a client.
//
// The connection guard (GuardedHttpServer) replaces httplib's per-connection loop, whose
// keep-alive wait polls every 10 ms and whose reads time out per read only, and its fixed
// thread pool, in which a few held connections leave no thread for anyone else. The
// guard counts connections per client address and refuses those beyond the bounds with a
// 503 before reading anything; each admitted connection waits for a request with one
// blocking poll (the idle timeout), then reads the request's head through a stream whose
// reads end at the head's deadline, and hands it to httplib's process_request, which
// parses, routes and answers as before.
#include "hetsched/service/service_http_server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/logger.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <system_error>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/utf8_text.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/service_log.hpp"
#include "service_event_stream.hpp"

namespace hetsched {
// The connection guard's parts. A named namespace, not an anonymous one: GuardedHttpServer,
// declared in the header, holds them, and a class with linkage may not hold a type without.
namespace connection_guard {

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

// ---- The connection guard ----

using GuardClock = std::chrono::steady_clock;

// Threads for connections, started when a connection finds none free (up to `ceiling`)
// and retiring after `linger` without work, down to `floor`. httplib's own pool has a
// fixed size: with every thread held by an idle connection, a new one waits in its queue.
class OnDemandThreads final : public httplib::TaskQueue {
 public:
  OnDemandThreads(std::size_t floor, std::size_t ceiling, std::chrono::milliseconds linger)
      : floor_(floor), ceiling_(std::max(ceiling, floor)), linger_(linger) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < floor_; ++i) start_thread();
  }
  ~OnDemandThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::list<std::thread> retired;
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(fn));
      // Waiting threads take the jobs; a job no thread waits for gets a new thread.
      if (waiting_ < jobs_.size() && live_.size() < ceiling_) start_thread();
      retired.swap(retired_);
    }
    ready_.notify_one();
    for (std::thread& t : retired) t.join();
  }

  void shutdown() override {
    std::list<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      // From here no thread starts or retires: the lists are this call's to join.
      threads.splice(threads.end(), live_);
      threads.splice(threads.end(), retired_);
    }
    ready_.notify_all();
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  }

 private:
  // Under the lock. A thread the system refuses (a limit on threads or memory) leaves the
  // job queued for a thread that frees up.
  void start_thread() {
    auto self = live_.emplace(live_.end());
    try {
      *self = std::thread([this, self] { work(self); });
    } catch (const std::system_error&) {
      live_.erase(self);
    }
  }

  void work(std::list<std::thread>::iterator self) {
    std::unique_lock lock(mutex_);
    while (true) {
      ++waiting_;
      const bool woken =
          ready_.wait_for(lock, linger_, [this] { return !jobs_.empty() || stopping_; });
      --waiting_;
      if (!jobs_.empty()) {
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        job = nullptr;
        lock.lock();
        continue;
      }
      if (stopping_) return;
      if (!woken && live_.size() > floor_) {
        // Joined by the next enqueue or by shutdown.
        retired_.splice(retired_.end(), live_, self);
        return;
      }
    }
  }

  const std::size_t floor_, ceiling_;
  const std::chrono::milliseconds linger_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::list<std::thread> live_, retired_;
  std::size_t waiting_ = 0;
  bool stopping_ = false;
};

int milliseconds_until(GuardClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - GuardClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 24LL * 3600 * 1000));
}

// Waits for `events` on `sock`; > 0 when they came, 0 on timeout, < 0 on error.
int poll_socket(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  while (true) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// One connection as httplib's request parser reads and writes it: reads come from a
// buffer (the parser asks for one byte at a time) and wait at most the read timeout, and
// while a request's head is being read, never past its deadline.
class GuardedConnection final : public httplib::Stream {
 public:
  GuardedConnection(int sock, std::chrono::milliseconds read_timeout,
                    std::chrono::milliseconds write_timeout)
      : sock_(sock), read_timeout_(read_timeout), write_timeout_(write_timeout) {}

  // Waits up to `idle` for the next request's first byte; false when none came (or the
  // connection closed or failed: the parser then finds nothing to read).
  bool wait_for_request(std::chrono::milliseconds idle) {
    if (buffered() > 0) return true;  // a pipelined request
    return poll_socket(sock_, POLLIN, static_cast<int>(idle.count())) > 0;
  }
  void arm_head_deadline(std::chrono::milliseconds head) {
    head_deadline_ = GuardClock::now() + head;
    head_armed_ = true;
    head_expired_ = false;
    written_ = false;
  }
  void head_complete() { head_armed_ = false; }
  bool head_expired() const { return head_expired_; }
  bool written() const { return written_; }  // since the deadline was armed
  void close_after_answer() { close_after_answer_ = true; }
  bool closing() const { return close_after_answer_; }

  bool is_readable() const override {
    return buffered() > 0 || poll_socket(sock_, POLLIN, read_wait_ms()) > 0;
  }
  bool is_writable() const override {
    return poll_socket(sock_, POLLOUT, static_cast<int>(write_timeout_.count())) > 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (buffered() == 0) {
      const int wait = read_wait_ms();
      if (poll_socket(sock_, POLLIN, wait) <= 0) {
        // A wait the head's deadline cut short (poll's milliseconds end a little early).
        if (head_armed_ && wait < static_cast<int>(read_timeout_.count())) head_expired_ = true;
        return -1;
      }
      ssize_t n;
      do n = ::recv(sock_, buffer_, sizeof buffer_, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, buffered());
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n > 0) written_ = true;
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      numeric_host_and_port(address, length, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      numeric_host_and_port(address, length, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  std::size_t buffered() const { return end_ - begin_; }
  int read_wait_ms() const {
    const int wait = static_cast<int>(read_timeout_.count());
    return head_armed_ ? std::min(wait, milliseconds_until(head_deadline_)) : wait;
  }
  static void numeric_host_and_port(const sockaddr_storage& address, socklen_t length,
                                    std::string& ip, int& port) {
    char host[NI_MAXHOST], service[NI_MAXSERV];
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host,
                      service, sizeof service, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
      return;
    ip = host;
    port = std::atoi(service);
  }

  const int sock_;
  const std::chrono::milliseconds read_timeout_, write_timeout_;
  char buffer_[4096];
  std::size_t begin_ = 0, end_ = 0;
  GuardClock::time_point head_deadline_{};
  bool head_armed_ = false, head_expired_ = false, written_ = false;
  bool close_after_answer_ = false;
};

// The connection this thread serves, for the handlers httplib calls while it does.
thread_local GuardedConnection* current_guarded_connection = nullptr;

// Whom a connection counts against: the client's IPv4 address, or the /64 of its IPv6 one
// (a client given a /64 holds every address in it). Empty when the peer is unknown.
std::string connection_owner(int sock) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(sock, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return text;
  }
  if (address.ss_family == AF_INET6) {
    in6_addr a = reinterpret_cast<const sockaddr_in6&>(address).sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      ::inet_ntop(AF_INET, a.s6_addr + 12, text, sizeof text);
      return text;
    }
    std::fill(a.s6_addr + 8, a.s6_addr + 16, 0);
    ::inet_ntop(AF_INET6, &a, text, sizeof text);
    return std::string(text) + "/64";
  }
  return "other";
}

// Writes a whole small answer, best effort, and never waits long for a slow reader.
void write_raw_answer(int sock, int status, std::string_view reason, const Json& body,
                      std::string_view extra_headers) {
  const std::string text = body.dump();
  const std::string answer = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}"
      "Connection: close\r\n\r\n{}",
      status, reason, text.size(), extra_headers, text);
  std::size_t sent = 0;
  while (sent < answer.size() && poll_socket(sock, POLLOUT, 100) > 0) {
    const ssize_t n =
        ::send(sock, answer.data() + sent, answer.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) {
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return;
    }
    sent += static_cast<std::size_t>(n);
  }
}

// Closes a connection after an answer without reading its request: its FIN follows the
// answer, and what the client has already sent is discarded (closing with unread bytes
// would send a reset, which may cost the client the answer).
void close_after_raw_answer(int sock) {
  ::shutdown(sock, SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(sock, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  ::close(sock);
}

std::chrono::milliseconds to_milliseconds(double seconds) {
  return std::chrono::milliseconds(std::max<long long>(1, std::llround(seconds * 1000)));
}

}  // namespace connection_guard

using namespace connection_guard;

class GuardedHttpServer final : public httplib::Server {
 public:
  struct Limits {
    std::size_t threads = 8;
    std::size_t max_connections = 4096;
    std::size_t max_per_address = 256;
    std::chrono::milliseconds idle{5000}, head{10000}, read{5000}, write{5000};
  };

  explicit GuardedHttpServer(const Limits& limits) : limits_(limits) {
    // A thread for every connection the bound admits, and a few more that answer the
    // refusals beyond it.
    const std::size_t floor = std::max<std::size_t>(1, limits_.threads);
    const std::size_t ceiling = limits_.max_connections + 32;
    new_task_queue = [floor, ceiling] {
      return new OnDemandThreads(floor, ceiling, std::chrono::seconds(10));
    };
    // httplib's defaults for what the guard does not replace; the Keep-Alive header
    // advertises the idle timeout.
    set_read_timeout(static_cast<time_t>(limits_.read.count() / 1000),
                     static_cast<time_t>(limits_.read.count() % 1000 * 1000));
    set_write_timeout(static_cast<time_t>(limits_.write.count() / 1000),
                      static_cast<time_t>(limits_.write.count() % 1000 * 1000));
    set_keep_alive_timeout(static_cast<time_t>((limits_.idle.count() + 999) / 1000));
    // Runs after each answer is written: an answer that says it closes the connection
    // does (httplib would keep reading on it).
    set_logger([](const httplib::Request&, const httplib::Response& res) {
      if (current_guarded_connection && res.get_header_value("Connection") == "close")
        current_guarded_connection->close_after_answer();
    });
  }

  // httplib listens with a backlog of 5: a burst of connections overflows it and each
  // connection beyond waits for its SYN to be sent again (a second, then three). Listen
  // again with the kernel's bound (net.core.somaxconn) instead.
  void widen_backlog() {
    const socket_t sock = svr_sock_;
    if (sock != INVALID_SOCKET) ::listen(sock, 4096);
  }

  // Wakes every connection's thread (after stop(): the accept loop has ended) so that the
  // pool's shutdown does not wait out their idle timeouts; refuses connections from now.
  void close_connections() {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int sock : sockets_) ::shutdown(sock, SHUT_RDWR);
  }

  HttpConnectionCounts counts() const {
    std::lock_guard lock(mutex_);
    return {sockets_.size(), refused_, head_timeouts_};
  }

  const Limits& limits() const { return limits_; }

  Json head_timeout_body() const {
    return {{"error", fmt::format("the request's head (request line and headers) did not arrive "
                                  "within {} s of its first byte",
                                  static_cast<double>(limits_.head.count()) / 1000)}};
  }

 private:
  enum class Admission { admitted, stopping, over_total, over_address };

  Admission admit(int sock, const std::string& owner) {
    std::lock_guard lock(mutex_);
    if (stopping_) return Admission::stopping;
    if (sockets_.size() >= limits_.max_connections) {
      ++refused_;
      return Admission::over_total;
    }
    std::size_t& from_owner = per_owner_[owner];
    if (from_owner >= limits_.max_per_address) {
      ++refused_;
      return Admission::over_address;
    }
    ++from_owner;
    sockets_.insert(sock);
    return Admission::admitted;
  }

  void release(int sock, const std::string& owner) {
    std::lock_guard lock(mutex_);
    sockets_.erase(sock);
    const auto it = per_owner_.find(owner);
    if (it != per_owner_.end() && --it->second == 0) per_owner_.erase(it);
  }

  bool process_and_close_socket(socket_t sock) override {
    const std::string owner = connection_owner(sock);
    const Admission admission = admit(sock, owner);
    if (admission != Admission::admitted) {
      if (admission != Admission::stopping) {
        const bool total = admission == Admission::over_total;
        write_raw_answer(
            sock, 503, "Service Unavailable",
            {{"error", total ? "too many connections" : "too many connections from this address"},
             {"limit", total ? limits_.max_connections : limits_.max_per_address}},
            "Retry-After: 1\r\n");
      }
      close_after_raw_answer(sock);
      return false;
    }
    GuardedConnection connection(sock, limits_.read, limits_.write);
    current_guarded_connection = &connection;
    bool ret = false;
    for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET;
         --left) {
      if (!connection.wait_for_request(limits_.idle)) break;
      connection.arm_head_deadline(limits_.head);
      bool closed = false;
      ret = process_request(connection, left == 1, closed,
                            [&connection](httplib::Request&) { connection.head_complete(); });
      if (connection.head_expired()) {
        {
          std::lock_guard lock(mutex_);
          ++head_timeouts_;
        }
        // A head cut in its request line has no answer yet (httplib answers a cut in the
        // headers, which the error handler turns into this 408).
        if (!connection.written())
          write_raw_answer(sock, 408, "Request Timeout", head_timeout_body(), "");
        break;
      }
      if (!ret || closed || connection.closing()) break;
    }
    current_guarded_connection = nullptr;
    release(sock, owner);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ret;
  }

  const Limits limits_;
  mutable std::mutex mutex_;
  std::set<int> sockets_;
  std::map<std::string, std::size_t> per_owner_;
  std::uint64_t refused_ = 0, head_timeouts_ = 0;
  bool stopping_ = false;
};

bool constant_time_equals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

std::size_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? SIZE_MAX : static_cast<std::size_t>(limit.rlim_cur);
}

namespace {

// The connection bound the open-file limit leaves room for: every connection holds a
// descriptor, and the rest of the process (state store, engine, logs) keeps 128.
std::size_t connections_within_file_limit(std::size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  const auto files = static_cast<std::size_t>(limit.rlim_cur);
  return std::max<std::size_t>(1, std::min(wanted, files > 256 ? files - 128 : files / 2));
}

void check_positive_seconds(double seconds, const char* field) {
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw InputError(SourcePosition{field}, fmt::format("expected a positive number of seconds, "
                                                        "got {}",
                                                        seconds));
}

}  // namespace

ServiceHttpServer::ServiceHttpServer(ControlPlane& control_plane, HttpServerOptions options)
    : control_plane_(control_plane), options_(std::move(options)) {
  if (options_.token.empty()) throw InputError(SourcePosition{"token"}, "the token is empty");
  if (options_.max_connections == 0 || options_.max_connections_per_address == 0)
    throw InputError(SourcePosition{"max_connections"}, "the connection bounds must be positive");
  check_positive_seconds(options_.idle_seconds, "idle_seconds");
  check_positive_seconds(options_.request_head_seconds, "request_head_seconds");
  GuardedHttpServer::Limits limits;
  limits.threads = options_.threads;
  limits.max_connections = connections_within_file_limit(options_.max_connections);
  limits.max_per_address = options_.max_connections_per_address;
  limits.idle = to_milliseconds(options_.idle_seconds);
  limits.head = to_milliseconds(options_.request_head_seconds);
  check_positive_seconds(options_.event_keepalive_seconds, "event_keepalive_seconds");
  server_ = std::make_unique<GuardedHttpServer>(limits);
  events_ = std::make_shared<ServiceEventHub>(
      std::max<std::size_t>(1, std::min(options_.max_event_streams, limits.max_connections / 2)));
  // The listener holds the hub weakly: the control plane may call it after the server is gone.
  control_plane_.set_change_listener([weak = std::weak_ptr<ServiceEventHub>(events_)] {
    if (const std::shared_ptr<ServiceEventHub> hub = weak.lock()) hub->notify();
  });
  install_routes();
  install_dashboard_routes();
}

ServiceHttpServer::~ServiceHttpServer() { stop(); }

std::size_t ServiceHttpServer::max_connections() const { return server_->limits().max_connections; }

HttpConnectionCounts ServiceHttpServer::connection_counts() const { return server_->counts(); }

std::size_t ServiceHttpServer::event_streams() const { return events_->open_streams(); }

int ServiceHttpServer::bind(const std::string& host, int port) {
  const int bound =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw std::runtime_error(fmt::format("cannot listen on {}:{}", host, port));
  server_->widen_backlog();
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
  // Open event streams end first, each with its last chunk (a client sees the stream end,
  // not break), so that no connection's thread is left waiting for a change. A client that
  // does not read its stream is not waited for long: its connection is cut below.
  if (events_) {
    events_->stop();
    events_->wait_until_closed(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  }
  if (server_) {
    server_->stop();
    // Held connections would keep their threads, and so the pool's shutdown, waiting.
    server_->close_connections();
  }
  if (thread_.joinable()) thread_.join();
}

void ServiceHttpServer::install_routes() {
  httplib::Server& s = *server_;
  // Threads, timeouts and connection bounds are the guard's (GuardedHttpServer).
  s.set_payload_max_length(options_.max_body_bytes);
  // Answers are small: sent at once, not held back by Nagle's algorithm for the client's
  // delayed acknowledgement (tens of milliseconds per request on a kept-alive connection).
  s.set_tcp_nodelay(true);
  install_request_guards();
  install_status_routes();
  install_node_routes();
  install_job_routes();
}

// Authentication and leadership before any route runs, and the answers to requests no
// route took or that failed unexpectedly.
void ServiceHttpServer::install_request_guards() {
  httplib::Server& s = *server_;
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
    // The dashboard's page holds no data: the token is asked for by its script.
    if (req.path == "/healthz" || req.path == "/")
      return httplib::Server::HandlerResponse::Unhandled;
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
        service_log().error("request {} ({} {}) failed: {}", request_id, printable_text(req.method),
                            printable_text(req.path), printable_text(detail));
        res.set_header("X-Request-Id", request_id);
        answer(res, 500,
               {{"error", fmt::format("internal error; the server's log has its detail under "
                                      "request id {}",
                                      request_id)},
                {"request_id", request_id}});
      });
  s.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
    if (current_guarded_connection && current_guarded_connection->head_expired()) {
      // httplib answers 400 to a head its reads gave up on; the guard cut it at its
      // deadline.
      res.set_header("Connection", "close");
      return answer(res, 408, server_->head_timeout_body());
    }
    if (!res.body.empty()) return;
    const char* message = res.status == 404   ? "no such route"
                          : res.status == 413 ? "request body too large"
                          : res.status == 400 ? "malformed request"
                                              : "request failed";
    error_answer(res, res.status, message);
  });
}

void ServiceHttpServer::install_status_routes() {
  httplib::Server& s = *server_;
  // 200 while the server answers; "degraded" (with the store's or engine's error) while
  // its scheduling steps fail and are retried with backoff.
  s.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const ControlPlane::StepHealth health = control_plane_.step_health();
    Json body{{"status", health.failing ? "degraded" : "ok"},
              {"leader", control_plane_.leadership().is_leader()},
              {"engine", control_plane_.engine_name()},
              {"scheduling_step_failures_total", health.failures_total}};
    if (health.failing) body["scheduling_error"] = health.error;
    answer(res, 200, body);
  });

  s.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    const HttpConnectionCounts connections = server_->counts();
    res.set_content(
        to_prometheus_text(control_plane_.metrics()) +
            fmt::format(
                "# HELP hetsched_http_connections Connections the API serves now.\n"
                "# TYPE hetsched_http_connections gauge\n"
                "hetsched_http_connections {}\n"
                "# HELP hetsched_http_connections_refused_total Connections refused with 503 "
                "beyond the connection bounds.\n"
                "# TYPE hetsched_http_connections_refused_total counter\n"
                "hetsched_http_connections_refused_total {}\n"
                "# HELP hetsched_http_request_head_timeouts_total Connections closed because a "
                "request's head was not complete by its deadline.\n"
                "# TYPE hetsched_http_request_head_timeouts_total counter\n"
                "hetsched_http_request_head_timeouts_total {}\n",
                connections.open, connections.refused, connections.request_head_timeouts),
        "text/plain; version=0.0.4; charset=utf-8");
  });
}

void ServiceHttpServer::install_node_routes() {
  httplib::Server& s = *server_;
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
      events_->notify();
    } catch (const InputError& e) {
      if (e.where().file == "engine") return error_answer(res, 409, e.message(), "engine");
      input_error_answer(res, e);
    }
  });
}

// The routes that take a body read it themselves, so that a chunked one is bounded too.
void ServiceHttpServer::install_job_routes() {
  httplib::Server& s = *server_;
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
      events_->notify();
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

namespace {

// Between two batches of events on one stream at least this much time passes: changes that
// come faster (a twin at full speed finishes thousands of tasks a second) are coalesced.
constexpr std::chrono::milliseconds kEventMinInterval{200};

// One open GET /v1/events stream, shared by its content provider's calls.
struct EventStream {
  std::unique_ptr<ServiceEventHub::Subscription> subscription;
  ServiceEventFeed feed;
  int socket = -1;         // the client's connection, watched for its closing
  std::uint64_t sent = 0;  // the hub's sequence the latest events were computed at
  bool started = false;
  GuardClock::time_point last_write{}, not_before{};
};

// 128 bits from the system's random source, hex: a script nonce for one answer.
std::string random_nonce() {
  std::random_device source;
  std::string out;
  for (int i = 0; i < 4; ++i) out += fmt::format("{:08x}", source());
  return out;
}

}  // namespace

void ServiceHttpServer::install_dashboard_routes() {
  httplib::Server& s = *server_;

  // The page is the same for everyone and carries no data (it is served without a
  // token): its script asks for the token and reads everything from the API.
  s.Get("/", [](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    const std::string nonce = random_nonce();
    res.set_header("Content-Security-Policy", dashboard_page_policy(nonce));
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_content(dashboard_page_html(nonce), "text/html; charset=utf-8");
  });

  s.Get("/v1/events", [this](const httplib::Request& req, httplib::Response& res) {
    if (!only_parameters(req, res, {})) return;
    auto stream = std::make_shared<EventStream>();
    stream->subscription = events_->subscribe();
    if (!stream->subscription) {
      if (events_->stopping()) return error_answer(res, 503, "the server is stopping");
      res.set_header("Retry-After", "5");
      return answer(
          res, 503,
          {{"error", "too many event streams are open"}, {"limit", events_->max_streams()}});
    }
    if (current_guarded_connection != nullptr)
      stream->socket = current_guarded_connection->socket();
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");  // a proxy in front must not hold events back
    const auto keepalive = to_milliseconds(options_.event_keepalive_seconds);
    res.set_chunked_content_provider(
        "text/event-stream", [this, stream, keepalive](std::size_t, httplib::DataSink& sink) {
          using Wake = ServiceEventHub::Subscription::Wake;
          const auto send = [&](const std::string& text) {
            stream->last_write = GuardClock::now();
            return sink.write(text.data(), text.size());
          };
          if (!stream->started) {  // the snapshot, at once
            stream->started = true;
            stream->sent = events_->sequence();
            return send("retry: 2000\n" + stream->feed.events(control_plane_, stream->sent));
          }
          for (;;) {
            const auto now = GuardClock::now();
            const std::uint64_t sequence = events_->sequence();
            const bool due = sequence != stream->sent;
            if (due && now >= stream->not_before) {
              stream->sent = sequence;
              const std::string text = stream->feed.events(control_plane_, sequence);
              if (!text.empty()) {
                stream->not_before = now + kEventMinInterval;
                return send(text);
              }
              continue;
            }
            const auto keepalive_at = stream->last_write + keepalive;
            if (now >= keepalive_at) return send(": keep-alive\n\n");
            const Wake wake =
                due ? stream->subscription->wait_quietly(stream->socket,
                                                         std::min(keepalive_at, stream->not_before))
                    : stream->subscription->wait(stream->sent, stream->socket, keepalive_at);
            if (wake == Wake::stopping) {
              sink.done();  // the last chunk: the client sees the stream end, not break
              return true;
            }
            if (wake == Wake::peer_closed) return false;
          }
        });
  });
}

}  // namespace hetsched
