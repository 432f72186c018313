// The OpenCL device uploads the next task's inputs while the current kernel runs.
#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/core/rng.hpp"
#include "hetsched/runtime/local_machine.hpp"
#include "hetsched/runtime/opencl_device.hpp"

namespace hetsched {
namespace {

KernelCall gemm_call(std::uint32_t n, HandleId a, HandleId b, HandleId c) {
  KernelCall call;
  call.kernel = KernelId::gemm;
  call.n = n;
  call.handle_count = 3;
  call.handles = {a, b, c};
  call.access = {Access::read, Access::read, Access::read_write};
  return call;
}

TEST(TransferOverlapTest, NextTaskInputsAreUploadedWhileTheKernelRunsAndUsedAsIs) {
  LocalDevices devices(LocalDevicesOptions{1, true, false});
  ASSERT_FALSE(devices.opencl_devices().empty()) << devices.notice();  // PoCL: bootstrap.sh
  OpenClDevice& device = *devices.opencl_devices().front();
  constexpr std::uint32_t n = 96;
  Rng rng(11);
  DataRegistry data;
  std::vector<HandleId> h;
  for (int i = 0; i < 6; ++i) {
    h.push_back(data.add(std::size_t(n) * n * sizeof(double)));
    for (double& x : data.view<double>(h.back())) x = rng.uniform(-1, 1);
  }
  std::vector<double> expected(std::size_t(n) * n);  // C2 + A2·B2
  {
    const auto a = data.view<double>(h[3]), b = data.view<double>(h[4]),
               c = data.view<double>(h[5]);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        double sum = c[i * n + j];
        for (std::uint32_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
        expected[i * n + j] = sum;
      }
  }
  const KernelCall first = gemm_call(n, h[0], h[1], h[2]);
  const KernelCall second = gemm_call(n, h[3], h[4], h[5]);
  const OpenClTransferStats before = device.transfer_stats();
  ASSERT_TRUE(device.run(first, data, &second));
  const OpenClTransferStats mid = device.transfer_stats();
  // The second task's three inputs went up while the first kernel was in flight.
  EXPECT_EQ(mid.prefetched - before.prefetched, 3u);
  EXPECT_EQ(mid.uploads_during_kernel - before.uploads_during_kernel, 3u);
  ASSERT_TRUE(device.run(second, data));
  const OpenClTransferStats after = device.transfer_stats();
  // The second task uploaded nothing more: it used the prefetched buffers ...
  EXPECT_EQ(after.uploads - before.uploads, 6u);
  // ... and computed the right product from them.
  const auto c = data.view<double>(h[5]);
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::abs(c[i] - expected[i]));
  EXPECT_LT(worst, 1e-9);
}

TEST(TransferOverlapTest, PrefetchSkipsInputsTheDeviceAlreadyHolds) {
  LocalDevices devices(LocalDevicesOptions{1, true, false});
  ASSERT_FALSE(devices.opencl_devices().empty()) << devices.notice();  // PoCL: bootstrap.sh
  OpenClDevice& device = *devices.opencl_devices().front();
  constexpr std::uint32_t n = 32;
  DataRegistry data;
  const HandleId a = data.add(n * n * 8), b = data.add(n * n * 8), c = data.add(n * n * 8),
                 d = data.add(n * n * 8);
  const KernelCall first = gemm_call(n, a, b, c);
  const KernelCall second = gemm_call(n, a, b, d);  // same A and B, another C
  const OpenClTransferStats before = device.transfer_stats();
  ASSERT_TRUE(device.run(first, data, &second));
  const OpenClTransferStats after = device.transfer_stats();
  EXPECT_EQ(after.prefetched - before.prefetched, 1u);  // only D
  EXPECT_EQ(after.uploads - before.uploads, 4u);        // A, B, C, then D
}

}  // namespace
}  // namespace hetsched
