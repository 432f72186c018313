// GpuFragmentation: how much of a node's free GPU capacity the expected requests could
// not use, the fragmentation measure of FGD (Weng et al., "Beware of Fragmentation",
// USENIX ATC 2023). For each kind of GPU request, weighted by its share of the requests,
// the free capacity of the node that such a request could not take:
//  - k whole GPUs: all of the node's free capacity when fewer than k of its GPUs are
//    entirely free, else the free capacity left on GPUs partly in use;
//  - a fraction m of one GPU: all of it when no GPU has m free, else what the GPUs with
//    less than m free hold.
// Capacities are in milli-GPUs (1000 per GPU). The job-stream core's fragmentation-aware
// placement (stream_scheduler.hpp) puts each job where this grows least.
#pragma once

#include <map>
#include <span>
#include <utility>
#include <vector>

namespace hetsched {

// One kind of request: `gpus` GPUs of `milli` thousandths each (1000: whole GPUs; a
// fraction is one GPU of 1..999), and its share of all GPU requests.
struct GpuRequestClass {
  int gpus = 1;
  int milli = 1000;
  double popularity = 0;
};

class GpuFragmentation {
 public:
  GpuFragmentation() = default;
  // Classes in order of (gpus, milli); popularities as given.
  explicit GpuFragmentation(std::vector<GpuRequestClass> mix);
  // The mix of a list of requests (gpus, milli per GPU), each request counted once.
  static GpuFragmentation of_requests(std::span<const std::pair<int, int>> requests);
  // The same from counts of each (gpus, milli per GPU).
  static GpuFragmentation of_counts(const std::map<std::pair<int, int>, double>& counts);

  // Weighted free milli-GPUs the mix could not use on a node whose GPUs have `free_milli`
  // free each (in any order; GPUs with none free may be left out).
  double operator()(std::span<const int> free_milli) const;
  const std::vector<GpuRequestClass>& mix() const { return mix_; }

 private:
  std::vector<GpuRequestClass> mix_;
};

}  // namespace hetsched
