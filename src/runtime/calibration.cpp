#include "hetsched/runtime/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <span>

#include "hetsched/core/quantile.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {

namespace {

// The sizes to measure a kernel at (kernel_traits.hpp).
struct SizePlan {
  std::span<const std::uint32_t> training, held_out;
};

SizePlan sizes_for(KernelId kernel, bool quick) {
  const CalibrationSizes& sizes = kernel_traits(kernel).calibration;
  return quick ? SizePlan{sizes.quick_training, sizes.quick_held_out}
               : SizePlan{sizes.training, sizes.held_out};
}

}  // namespace

std::unique_ptr<RuntimeDag> single_kernel_dag(KernelId kernel, std::uint32_t n,
                                              std::uint64_t seed) {
  auto dag = std::make_unique<RuntimeDag>();
  DataRegistry& data = dag->data();
  Rng rng(seed);
  KernelCall call;
  call.kernel = kernel;
  call.n = n;
  const auto signature = kernel_signature(kernel);
  auto add = [&](std::size_t bytes) {
    const HandleId h = data.add(bytes);
    call.access[call.handle_count] = signature[call.handle_count];
    call.handles[call.handle_count++] = h;
    return h;
  };
  const std::size_t square = std::size_t(n) * n * sizeof(double);
  auto fill_random = [&](HandleId h) {
    for (double& x : data.view<double>(h)) x = rng.uniform(-1, 1);
  };
  auto fill_lower_well_conditioned = [&](HandleId h) {
    auto m = data.view<double>(h);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j)
        m[std::size_t(i) * n + j] = i == j ? double(n) : (j < i ? rng.uniform(-1, 1) : 0.0);
  };
  double graph_edges = 0;
  switch (kernel) {
    case KernelId::gemm:
    case KernelId::gemm_nt:
      fill_random(add(square)), fill_random(add(square)), fill_random(add(square));
      break;
    case KernelId::syrk:
      fill_random(add(square)), fill_random(add(square));
      break;
    case KernelId::trsm: {
      fill_lower_well_conditioned(add(square));
      fill_random(add(square));
      break;
    }
    case KernelId::potrf: {
      const HandleId h = add(square);
      fill_random(h);
      auto m = data.view<double>(h);
      for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = 0; j < i; ++j) m[std::size_t(i) * n + j] = m[std::size_t(j) * n + i];
        m[std::size_t(i) * n + i] += n;
      }
      break;
    }
    case KernelId::stencil:
      fill_random(add(square));
      add(square);
      break;
    case KernelId::reduction:
      fill_random(add(std::size_t(n) * sizeof(double)));
      add(sizeof(double));
      break;
    case KernelId::sort: {
      const HandleId h = add(std::size_t(n) * sizeof(std::uint32_t));
      for (auto& k : data.view<std::uint32_t>(h)) k = std::uint32_t(rng.next_u64());
      break;
    }
    case KernelId::bfs: {
      std::vector<std::int32_t> csr;
      graph_edges = double(fill_random_graph(csr, n, 4, rng.next_u64()));
      const HandleId g = add(csr.size() * sizeof(std::int32_t));
      std::memcpy(data.data(g), csr.data(), csr.size() * sizeof(std::int32_t));
      add(std::size_t(n) * sizeof(std::int32_t));
      break;
    }
    case KernelId::empty:
      break;
  }
  dag->add_task(fmt::format("{}_calibration", to_string(kernel)), call, graph_edges);
  return dag;
}

CalibrationReport calibrate(LocalDevices& devices, HistoryRegressionModel& model,
                            const CalibrationOptions& options) {
  use_single_threaded_blas();
  std::vector<KernelId> kernels = options.kernels;
  if (kernels.empty())
    for (std::size_t k = 1; k < kKernelIdCount; ++k) kernels.push_back(static_cast<KernelId>(k));
  // One device per model: the first CPU worker, every OpenCL device.
  std::vector<DeviceId> targets;
  std::vector<std::string> seen;
  for (const Device& d : devices.cluster().devices())
    if (std::find(seen.begin(), seen.end(), d.spec.model) == seen.end()) {
      seen.push_back(d.spec.model);
      targets.push_back(d.id);
    }
  CalibrationReport report;
  const RooflineModel roofline(devices.cluster());
  std::vector<double> all_errors;
  std::uint64_t seed = 1;
  for (KernelId kernel : kernels) {
    const SizePlan plan = sizes_for(kernel, options.quick);
    for (DeviceId target : targets) {
      const Device& device = devices.cluster().device(target);
      CalibrationFit fit{std::string(to_string(kernel)), device.spec.model};
      if (options.progress)
        options.progress(fmt::format("calibrating {} on {}", fit.kernel, fit.device_model));
      // Returns the measured seconds of each repetition, or the failure.
      auto measure = [&](std::uint32_t n) -> std::vector<double> {
        std::vector<double> seconds;
        for (unsigned rep = 0; rep <= options.repetitions; ++rep) {  // rep 0 warms up
          auto dag = single_kernel_dag(kernel, n, seed++);
          const KernelCall& call = dag->calls().front();
          const auto start = std::chrono::steady_clock::now();
          const Status ran = devices.run_on(target, call, dag->data());
          const auto stop = std::chrono::steady_clock::now();
          if (!ran) {
            fit.failure = ran.error();
            return {};
          }
          if (rep > 0) seconds.push_back(std::chrono::duration<double>(stop - start).count());
        }
        return seconds;
      };
      auto record = [&](std::uint32_t n, const std::vector<double>& seconds, bool held_out) {
        const auto dag = single_kernel_dag(kernel, n, 0);
        const Task& task = dag->workload().jobs[0].tasks[0];
        for (double s : seconds) {
          model.record(task, device, s);
          report.measurements.push_back(describe_execution(task, device, roofline, s));
          report.measurements.back().held_out = held_out;
        }
        fit.samples += seconds.size();
      };
      for (std::uint32_t n : plan.training) {
        const auto seconds = measure(n);
        if (!fit.failure.empty()) break;
        record(n, seconds, false);
      }
      // Held-out sizes are all predicted from the training fit before any joins the history.
      std::vector<double> errors;
      std::vector<std::pair<std::uint32_t, std::vector<double>>> held_out;
      for (std::uint32_t n : plan.held_out) {
        if (!fit.failure.empty()) break;
        auto seconds = measure(n);
        if (seconds.empty()) break;
        const auto dag = single_kernel_dag(kernel, n, 0);
        const Task& task = dag->workload().jobs[0].tasks[0];
        const auto predicted = model.regression_seconds(fit.kernel, fit.device_model, task.bytes);
        double mean = 0;
        for (double s : seconds) mean += s / double(seconds.size());
        if (predicted && mean > 0) errors.push_back(std::abs(*predicted - mean) / mean);
        held_out.emplace_back(n, std::move(seconds));
        ++fit.held_out_sizes;
      }
      for (const auto& [n, seconds] : held_out) record(n, seconds, true);
      fit.median_relative_error = nearest_rank_quantile(errors, 0.5);
      fit.p95_relative_error = nearest_rank_quantile(errors, 0.95);
      all_errors.insert(all_errors.end(), errors.begin(), errors.end());
      report.fits.push_back(std::move(fit));
    }
  }
  report.median_relative_error = nearest_rank_quantile(all_errors, 0.5);
  report.p95_relative_error = nearest_rank_quantile(all_errors, 0.95);
  return report;
}

}  // namespace hetsched
