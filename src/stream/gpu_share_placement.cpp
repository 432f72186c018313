// GPU-sharing placement on the Alibaba trace (see gpu_share_placement.hpp): a body of
// the one job-stream core. It replays the trace's creations and deletions on the shared
// event queue, submits each pod to the StreamScheduler when it is created, withdraws it
// when it is deleted (releasing what it holds, or giving up its wait), and asks the core
// what starts after each of these. Every decision is the core's; what this file adds is
// the accounting the experiment reports (GPU demand placed, fragmentation seen by each
// arriving GPU pod, waits).
#include "hetsched/stream/gpu_share_placement.hpp"

#include <algorithm>
#include <string_view>

#include "hetsched/sim/event_queue.hpp"
#include "hetsched/stream/gpu_fragmentation.hpp"
#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {
namespace {

bool model_allowed(const AlibabaPod& pod, const std::string& model) {
  if (pod.gpu_spec.empty()) return true;
  std::string_view spec = pod.gpu_spec;
  while (!spec.empty()) {
    const std::size_t bar = spec.find('|');
    if (spec.substr(0, bar) == model) return true;
    if (bar == std::string_view::npos) break;
    spec.remove_prefix(bar + 1);
  }
  return false;
}

}  // namespace

StreamResources alibaba_stream_resources(const std::vector<AlibabaNode>& nodes) {
  StreamResources resources;
  for (const AlibabaNode& node : nodes) {
    auto type = std::find_if(resources.types.begin(), resources.types.end(),
                             [&](const StreamDeviceType& t) { return t.model == node.gpu_model; });
    if (type == resources.types.end()) {
      StreamDeviceType added;
      added.model = node.gpu_model;
      added.devices_per_node = 0;
      added.nodes_per_rack = 1;
      resources.types.push_back(added);
      type = resources.types.end() - 1;
    }
    type->count += node.gpus;
    type->devices_per_node = std::max(type->devices_per_node, node.gpus);
    StreamNode stream_node;
    stream_node.type = static_cast<std::size_t>(type - resources.types.begin());
    stream_node.devices = node.gpus;
    stream_node.cluster_node = static_cast<std::uint32_t>(resources.nodes.size());
    stream_node.name = node.name;
    stream_node.cpu_milli = node.cpu_milli;
    stream_node.memory_mib = node.memory_mib;
    resources.nodes.push_back(std::move(stream_node));
  }
  return resources;
}

StreamJob alibaba_stream_job(const AlibabaPod& pod, const StreamResources& resources) {
  StreamJob job;
  job.name = pod.name;
  job.gang_size = pod.gpus;
  job.gpu_milli = pod.gpus > 0 && pod.gpu_milli < 1000 ? pod.gpu_milli : 0;
  job.cpu_milli = pod.cpu_milli;
  job.memory_mib = pod.memory_mib;
  // It leaves at its deletion time, however long it waited: its steps only order it.
  job.total_steps = std::max(1.0, pod.deletion_seconds - pod.creation_seconds);
  job.arrival_seconds = pod.creation_seconds;
  for (const StreamDeviceType& type : resources.types)
    if (pod.gpus == 0 || model_allowed(pod, type.model)) job.steps_per_second[type.model] = 1.0;
  return job;
}

GpuShareResult simulate_gpu_share(const std::vector<AlibabaNode>& nodes,
                                  const std::vector<AlibabaPod>& pods, DevicePlacement placement,
                                  bool keep_resources) {
  GpuShareResult result;
  result.policy =
      placement == DevicePlacement::fragmentation_aware ? "fragmentation-aware" : "best-fit";
  result.pods = pods.size();
  const StreamResources resources = alibaba_stream_resources(nodes);
  // FGD's target workload: the trace's own GPU requests, as the paper takes them.
  std::vector<std::pair<int, int>> requests;
  for (const AlibabaPod& pod : pods)
    if (pod.gpus > 0) requests.emplace_back(pod.gpus, pod.gpu_milli);
  StreamSchedulerOptions options;
  options.device_placement = placement;
  options.request_mix = GpuFragmentation::of_requests(requests).mix();
  options.strict_order = false;
  options.gang_spread = GangSpread::one_node;
  const auto fifo = make_stream_policy("fifo");
  StreamScheduler scheduler(resources, *fifo, options);

  enum : std::uint32_t { arrive = 0, leave = 1 };
  EventQueue events;
  for (std::size_t p = 0; p < pods.size(); ++p) {
    events.schedule(pods[p].creation_seconds, arrive, static_cast<std::uint32_t>(p));
    if (!keep_resources)
      events.schedule(pods[p].deletion_seconds, leave, static_cast<std::uint32_t>(p));
  }
  std::vector<std::size_t> slot(pods.size(), 0);  // pod -> the core's job index
  std::vector<std::size_t> pod_of;                // the core's job index -> pod
  double asked = 0, granted = 0, wait_sum = 0, fragmentation_sum = 0, fragmented_sum = 0;
  std::size_t placed_count = 0, samples = 0;
  const auto start_what_fits = [&](double now) {
    for (const StreamStart& start : scheduler.schedule(now)) {
      const AlibabaPod& pod = pods[pod_of[start.job]];
      ++placed_count;
      wait_sum += now - pod.creation_seconds;
      if (pod.gpus > 0) {
        ++result.placed_gpu_pods;
        granted += pod.gpus * pod.gpu_milli;
      }
    }
  };
  while (!events.empty()) {
    const Event event = events.pop();
    const std::size_t p = event.subject;
    const AlibabaPod& pod = pods[p];
    if (event.kind == arrive) {
      if (pod.gpus > 0) {
        ++result.gpu_pods;
        asked += pod.gpus * pod.gpu_milli;
        const GpuCapacity capacity = scheduler.gpu_capacity();
        fragmented_sum += capacity.fragmented_milli;
        fragmentation_sum +=
            capacity.free_milli > 0 ? capacity.fragmented_milli / capacity.free_milli : 0;
        ++samples;
      }
      slot[p] = scheduler.submit(alibaba_stream_job(pod, resources), event.time);
      pod_of.push_back(p);
      start_what_fits(event.time);
    } else {
      const bool held = scheduler.job(slot[p]).state == StreamJobState::running;
      scheduler.withdraw(slot[p], event.time);
      if (held) start_what_fits(event.time);  // resources freed: the waiting pods may fit
    }
  }
  result.placed_fraction = asked > 0 ? granted / asked : 1.0;
  result.fragmentation = samples ? fragmentation_sum / samples : 0.0;
  result.fragmented_milli_gpus = samples ? fragmented_sum / samples : 0.0;
  result.avg_wait_seconds = placed_count ? wait_sum / placed_count : 0.0;
  return result;
}

}  // namespace hetsched
