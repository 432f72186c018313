// The dashboard's live events (GET /v1/events) and its page: see service_event_stream.hpp.
#include "service_event_stream.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string_view>

#include "hetsched/cluster/device_spec.hpp"
#include "hetsched/io/web_assets.hpp"
#include "hetsched/service/control_plane.hpp"

namespace hetsched {
namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& json) {
  // Stored texts are UTF-8; should one not be, its bad bytes are sent as U+FFFD.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// One event in text/event-stream framing; `data` is one line (dumped JSON is).
void append_event(std::string& out, std::string_view name, std::uint64_t id,
                  const std::string& data) {
  fmt::format_to(std::back_inserter(out), "event: {}\nid: {}\ndata: {}\n\n", name, id, data);
}

const char* node_state_name(EngineNodeState state) {
  return state == EngineNodeState::up         ? "up"
         : state == EngineNodeState::draining ? "draining"
                                              : "down";
}

// The figures the dashboard charts, without the time (so that two can be compared).
Json metrics_json(const ServiceMetrics& m) {
  Json jobs = Json::object();
  for (std::size_t s = 0; s < m.jobs_by_state.size(); ++s)
    jobs[std::string(to_string(static_cast<ServiceJobState>(s)))] = m.jobs_by_state[s];
  Json devices = Json::object(), busy = Json::object();
  std::uint64_t devices_total = 0, busy_total = 0;
  for (std::size_t k = 0; k < kDeviceKindCount; ++k) {
    const std::string kind(to_string(static_cast<DeviceKind>(k)));
    devices[kind] = m.devices_by_kind[k];
    busy[kind] = m.busy_devices_by_kind[k];
    devices_total += m.devices_by_kind[k];
    busy_total += m.busy_devices_by_kind[k];
  }
  Json out{{"jobs", std::move(jobs)},
           {"jobs_submitted_total", m.jobs_submitted_total},
           {"queue_length", m.queue_length},
           {"running_tasks", m.running_tasks},
           {"devices", std::move(devices)},
           {"busy_devices", std::move(busy)},
           {"devices_total", devices_total},
           {"busy_devices_total", busy_total},
           {"decisions_total", m.decisions_total},
           {"task_failures_total", m.task_failures_total},
           {"replans_total", m.replans_total},
           {"energy_joules", m.energy_joules},
           {"scheduling_step_failing", m.step_failing}};
  if (m.step_failing) out["scheduling_error"] = m.step_error;
  return out;
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Waits for `events` on the descriptors; the poll() result.
int poll_fds(pollfd* fds, nfds_t count, int timeout_ms) {
  while (true) {
    const int n = ::poll(fds, count, timeout_ms);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// Whether the peer has closed the connection (or sent something, which a client reading
// an event stream never does: the stream ends then too). Called when poll says readable.
bool peer_gone(int sock) {
  char byte;
  ssize_t n;
  do n = ::recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace

// ---- ServiceEventHub ----

ServiceEventHub::ServiceEventHub(std::size_t max_streams) : max_streams_(max_streams) {}

ServiceEventHub::~ServiceEventHub() {
  // Subscriptions hold a reference to the hub: they must be gone by now.
  std::lock_guard lock(mutex_);
  for (int fd : fds_) ::close(fd);
}

std::unique_ptr<ServiceEventHub::Subscription> ServiceEventHub::subscribe() {
  std::lock_guard lock(mutex_);
  if (stopping_ || fds_.size() >= max_streams_) return nullptr;
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) return nullptr;
  fds_.insert(fd);
  return std::unique_ptr<Subscription>(new Subscription(*this, fd));
}

void ServiceEventHub::unsubscribe(int fd) {
  {
    std::lock_guard lock(mutex_);
    fds_.erase(fd);
    ::close(fd);
  }
  closed_.notify_all();
}

bool ServiceEventHub::wait_until_closed(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return closed_.wait_until(lock, deadline, [this] { return fds_.empty(); });
}

void ServiceEventHub::notify() {
  std::lock_guard lock(mutex_);
  ++sequence_;
  const std::uint64_t one = 1;
  for (int fd : fds_) [[maybe_unused]] const ssize_t written = ::write(fd, &one, sizeof one);
}

void ServiceEventHub::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  const std::uint64_t one = 1;
  for (int fd : fds_) [[maybe_unused]] const ssize_t written = ::write(fd, &one, sizeof one);
}

std::uint64_t ServiceEventHub::sequence() const {
  std::lock_guard lock(mutex_);
  return sequence_;
}

bool ServiceEventHub::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

std::size_t ServiceEventHub::open_streams() const {
  std::lock_guard lock(mutex_);
  return fds_.size();
}

ServiceEventHub::Subscription::~Subscription() { hub_.unsubscribe(fd_); }

ServiceEventHub::Subscription::Wake ServiceEventHub::Subscription::wait(
    std::uint64_t seen, int peer_socket, Clock::time_point deadline) {
  return wait_until(&seen, peer_socket, deadline);
}

ServiceEventHub::Subscription::Wake ServiceEventHub::Subscription::wait_quietly(
    int peer_socket, Clock::time_point deadline) {
  return wait_until(nullptr, peer_socket, deadline);
}

ServiceEventHub::Subscription::Wake ServiceEventHub::Subscription::wait_until(
    const std::uint64_t* seen, int peer_socket, Clock::time_point deadline) {
  while (true) {
    {
      // A notify() between this check and the poll leaves the eventfd readable.
      std::lock_guard lock(hub_.mutex_);
      if (hub_.stopping_) return Wake::stopping;
      if (seen != nullptr && hub_.sequence_ != *seen) return Wake::changed;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Wake::timeout;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {peer_socket, POLLIN | POLLRDHUP, 0}};
    const int n = poll_fds(fds, peer_socket >= 0 ? 2 : 1,
                           static_cast<int>(std::min<long long>(left.count(), 24LL * 3600 * 1000)));
    if (n < 0) return Wake::peer_closed;  // poll itself failed: end the stream
    if (n == 0) continue;                 // the deadline (checked above)
    if (fds[0].revents & POLLIN) {
      std::uint64_t count;
      [[maybe_unused]] const ssize_t read = ::read(fd_, &count, sizeof count);
    }
    if (peer_socket >= 0 && fds[1].revents != 0 &&
        ((fds[1].revents & (POLLERR | POLLHUP | POLLRDHUP | POLLNVAL)) != 0 ||
         peer_gone(peer_socket)))
      return Wake::peer_closed;
  }
}

// ---- ServiceEventFeed ----

std::string ServiceEventFeed::events(const ControlPlane& plane, std::uint64_t sequence,
                                     std::size_t max_job_events) {
  std::string out;
  const std::vector<ServiceJobSummary> jobs = plane.jobs();
  const std::vector<EngineNode> nodes = plane.nodes();
  Json metrics = metrics_json(plane.metrics());
  std::string metrics_text = dump(metrics);

  std::vector<std::pair<std::string, int>> node_states;
  node_states.reserve(nodes.size());
  for (const EngineNode& node : nodes) node_states.emplace_back(node.name, int(node.state));

  if (first_) {
    first_ = false;
    for (const ServiceJobSummary& j : jobs) jobs_[j.id] = {j.state, j.completed_tasks};
    nodes_ = std::move(node_states);
    metrics_ = std::move(metrics_text);
    metrics["time"] = unix_seconds_now();
    append_event(out, "snapshot", sequence,
                 dump({{"sequence", sequence},
                       {"engine", plane.engine_name()},
                       {"job_count", jobs.size()},
                       {"metrics", std::move(metrics)}}));
    return out;
  }

  std::vector<const ServiceJobSummary*> changed;
  std::vector<std::optional<ServiceJobState>> previous;
  for (const ServiceJobSummary& j : jobs) {
    const auto it = jobs_.find(j.id);
    if (it != jobs_.end() && it->second.state == j.state &&
        it->second.completed_tasks == j.completed_tasks)
      continue;
    changed.push_back(&j);
    previous.push_back(it == jobs_.end() ? std::nullopt : std::optional(it->second.state));
    jobs_[j.id] = {j.state, j.completed_tasks};
  }
  if (changed.size() > max_job_events) {
    append_event(out, "refresh", sequence,
                 dump({{"reason", fmt::format("{} jobs changed", changed.size())}}));
  } else {
    for (std::size_t i = 0; i < changed.size(); ++i) {
      const ServiceJobSummary& j = *changed[i];
      append_event(out, "job", sequence,
                   dump({{"id", j.id},
                         {"name", j.name},
                         {"policy", j.policy},
                         {"state", to_string(j.state)},
                         {"previous", previous[i] ? Json(to_string(*previous[i])) : Json(nullptr)},
                         {"tasks", j.tasks},
                         {"completed_tasks", j.completed_tasks}}));
    }
  }
  if (node_states != nodes_) {
    Json list = Json::array();
    for (const EngineNode& node : nodes)
      list.push_back({{"name", node.name}, {"state", node_state_name(node.state)}});
    append_event(out, "nodes", sequence, dump({{"nodes", std::move(list)}}));
    nodes_ = std::move(node_states);
  }
  if (metrics_text != metrics_) {
    metrics_ = std::move(metrics_text);
    metrics["time"] = unix_seconds_now();
    metrics["sequence"] = sequence;
    append_event(out, "metrics", sequence, dump(metrics));
  }
  return out;
}

// ---- The page ----

namespace {

// Text that ends an inline element's content where `closing` ("</script") appears; written
// as "<\/script" instead, which a script's strings and a style's read the same.
std::string inline_safe(std::string_view text, std::string_view closing) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t i = 0; i + closing.size() <= text.size(); ++i) {
    if (text[i] != '<') continue;
    bool match = true;
    for (std::size_t k = 1; k < closing.size() && match; ++k)
      match = std::tolower(static_cast<unsigned char>(text[i + k])) == closing[k];
    if (!match) continue;
    out.append(text.substr(from, i + 1 - from));
    out += '\\';
    from = i + 1;
  }
  out.append(text.substr(from));
  return out;
}

// index.html cut at its placeholders: {{nonce}} (per answer), {{style}}, {{echarts}} and
// {{script}} (the assets, made safe to inline once).
struct PageTemplate {
  std::vector<std::string> pieces;  // text, with the nonce between consecutive pieces
  std::size_t size = 0;
};

const PageTemplate& page_template() {
  static const PageTemplate page = [] {
    const std::string style = inline_safe(web_assets::dashboard_style, "</style");
    const std::string echarts = inline_safe(web_assets::echarts, "</script");
    const std::string script = inline_safe(web_assets::dashboard_script, "</script");
    const std::pair<std::string_view, const std::string*> assets[] = {
        {"{{style}}", &style}, {"{{echarts}}", &echarts}, {"{{script}}", &script}};
    // The assets first (each placeholder once), then cut at the nonces of the page's own
    // text, never inside an asset.
    const std::string_view html = web_assets::dashboard_page;
    PageTemplate t;
    std::string current;
    std::size_t from = 0;
    while (from < html.size()) {
      const std::size_t open = html.find("{{", from);
      if (open == std::string_view::npos) break;
      current.append(html.substr(from, open - from));
      const std::string_view rest = html.substr(open);
      if (rest.starts_with("{{nonce}}")) {
        t.pieces.push_back(std::move(current));
        current.clear();
        from = open + 9;
        continue;
      }
      bool replaced = false;
      for (const auto& [name, text] : assets)
        if (rest.starts_with(name)) {
          current += *text;
          from = open + name.size();
          replaced = true;
        }
      if (!replaced) {
        current += "{{";
        from = open + 2;
      }
    }
    current.append(html.substr(std::min(from, html.size())));
    t.pieces.push_back(std::move(current));
    for (const std::string& piece : t.pieces) t.size += piece.size();
    return t;
  }();
  return page;
}

}  // namespace

std::string dashboard_page_html(const std::string& nonce) {
  const PageTemplate& t = page_template();
  std::string out;
  out.reserve(t.size + (t.pieces.size() - 1) * nonce.size());
  for (std::size_t i = 0; i < t.pieces.size(); ++i) {
    if (i > 0) out += nonce;
    out += t.pieces[i];
  }
  return out;
}

std::string dashboard_page_policy(const std::string& nonce) {
  return fmt::format(
      "default-src 'none'; script-src 'nonce-{0}'; style-src 'unsafe-inline'; connect-src 'self'; "
      "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      nonce);
}

}  // namespace hetsched
