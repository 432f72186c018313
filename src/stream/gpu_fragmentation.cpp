// FGD's node fragmentation (see gpu_fragmentation.hpp). Cost: one pass over the node's
// GPUs, and one more per fractional class that some GPU can hold.
#include "hetsched/stream/gpu_fragmentation.hpp"

#include <algorithm>

namespace hetsched {

GpuFragmentation::GpuFragmentation(std::vector<GpuRequestClass> mix) : mix_(std::move(mix)) {
  std::stable_sort(mix_.begin(), mix_.end(),
                   [](const GpuRequestClass& a, const GpuRequestClass& b) {
                     return std::pair(a.gpus, a.milli) < std::pair(b.gpus, b.milli);
                   });
}

GpuFragmentation GpuFragmentation::of_requests(std::span<const std::pair<int, int>> requests) {
  std::map<std::pair<int, int>, double> counts;
  for (const auto& request : requests) counts[request] += 1;
  return of_counts(counts);
}

GpuFragmentation GpuFragmentation::of_counts(const std::map<std::pair<int, int>, double>& counts) {
  double total = 0;
  for (const auto& [key, count] : counts) total += count;
  std::vector<GpuRequestClass> mix;
  for (const auto& [key, count] : counts)
    mix.push_back(GpuRequestClass{key.first, key.second, count / std::max(1.0, total)});
  return GpuFragmentation(std::move(mix));
}

double GpuFragmentation::operator()(std::span<const int> free_milli) const {
  int total = 0, partial = 0, full = 0, largest = 0;
  for (int free : free_milli) {
    total += free;
    if (free == 1000)
      ++full;
    else
      partial += free;
    largest = std::max(largest, free);
  }
  if (total == 0) return 0;
  double result = 0;
  for (const GpuRequestClass& request : mix_) {
    double unusable;
    if (request.milli == 1000) {
      unusable = full >= request.gpus ? partial : total;
    } else if (largest < request.milli) {
      unusable = total;
    } else {
      unusable = 0;
      for (int free : free_milli)
        if (free < request.milli) unusable += free;
    }
    result += request.popularity * unusable;
  }
  return result;
}

}  // namespace hetsched
