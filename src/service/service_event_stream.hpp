// The service's live events for the dashboard: GET /v1/events answers text/event-stream
// (server-sent events) and sends an event whenever what the API shows has changed.
//
// ServiceEventHub counts changes (a sequence number) and wakes the open streams when it
// grows; stop() wakes them to end. Each open stream holds a ServiceEventHub::Subscription:
// an eventfd the hub writes on every change, so that a stream's thread waits in one poll()
// on that descriptor and on its client's socket. It wakes when the state changed, when the
// server stops, when the client goes away (a closed dashboard tab frees its stream at
// once) or when a keep-alive is due. ServiceHttpServer notifies the hub from the control
// plane's change listener (ControlPlane::set_change_listener).
// The number of streams is bounded (subscribe() gives null beyond it): each holds its
// connection's thread while it is open.
//
// ServiceEventFeed turns the control plane's state into the events one stream has not
// seen yet: a `snapshot` first (the metrics; the page reads jobs and nodes from the REST
// routes), then per change a `job` event for each job whose state or progress changed
// (new jobs included), a `nodes` event when a node appeared or changed state, and a
// `metrics` event when the figures changed. Too many job changes at once are one
// `refresh` event instead (read the lists again). Every event's data is one line of JSON.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/service/service_job.hpp"

namespace hetsched {

class ControlPlane;

class ServiceEventHub {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ServiceEventHub(std::size_t max_streams);
  ~ServiceEventHub();
  ServiceEventHub(const ServiceEventHub&) = delete;
  ServiceEventHub& operator=(const ServiceEventHub&) = delete;

  // One open stream's wake-ups. Unsubscribes when destroyed.
  class Subscription {
   public:
    ~Subscription();
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;

    enum class Wake { changed, timeout, peer_closed, stopping };
    // Waits until the hub's sequence differs from `seen`, the hub stops, the peer closes
    // `peer_socket` (-1: no socket to watch) or `deadline` passes. `changed` only reports
    // a sequence other than `seen`; a stop wins over everything else.
    Wake wait(std::uint64_t seen, int peer_socket, Clock::time_point deadline);
    // As wait(), but changes do not end it: only a stop, the peer closing or the deadline.
    Wake wait_quietly(int peer_socket, Clock::time_point deadline);

   private:
    friend class ServiceEventHub;
    Subscription(ServiceEventHub& hub, int fd) : hub_(hub), fd_(fd) {}
    Wake wait_until(const std::uint64_t* seen, int peer_socket, Clock::time_point deadline);
    ServiceEventHub& hub_;
    const int fd_;
  };

  // A new stream's subscription; null when max_streams are open, or after stop().
  std::unique_ptr<Subscription> subscribe();
  // What readers see may have changed: the sequence grows and every stream wakes. Any
  // thread; never blocks beyond a short lock.
  void notify();
  // Wakes every stream to end; subscribe() gives null from now. Idempotent.
  void stop();
  // Waits until every subscription is gone (each stream has sent its end) or `deadline`
  // passes; true when none is left.
  bool wait_until_closed(Clock::time_point deadline);

  std::uint64_t sequence() const;
  bool stopping() const;
  std::size_t open_streams() const;
  std::size_t max_streams() const { return max_streams_; }

 private:
  void unsubscribe(int fd);

  const std::size_t max_streams_;
  mutable std::mutex mutex_;
  std::condition_variable closed_;  // a subscription went away
  std::set<int> fds_;               // the open subscriptions' eventfds
  std::uint64_t sequence_ = 1;
  bool stopping_ = false;
};

class ServiceEventFeed {
 public:
  // The events (text/event-stream framing, each with `id: <sequence>`) for what changed
  // since the previous call; the first call gives the snapshot. Empty when nothing the
  // events carry has changed. `max_job_events`: beyond it, one `refresh` event.
  std::string events(const ControlPlane& plane, std::uint64_t sequence,
                     std::size_t max_job_events = 500);

 private:
  struct JobSeen {
    ServiceJobState state;
    std::size_t completed_tasks;
  };
  bool first_ = true;
  std::map<std::uint64_t, JobSeen> jobs_;
  std::vector<std::pair<std::string, int>> nodes_;  // name, state
  std::string metrics_;                             // the last metrics sent, without time
};

// The dashboard page (web/dashboard/index.html with its style, ECharts and script
// inlined), its script and style elements carrying `nonce`; see dashboard_page_policy.
std::string dashboard_page_html(const std::string& nonce);
// The Content-Security-Policy the page is served with: scripts only with the nonce, no
// request but to this origin, no form submission, no framing.
std::string dashboard_page_policy(const std::string& nonce);

}  // namespace hetsched
