// Every kernel of the library, CPU and OpenCL (PoCL's CPU device in CI), against
// references written out here with plain loops.
#include "hetsched/runtime/kernel_library.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "hetsched/core/rng.hpp"
#include "hetsched/runtime/cuda_device.hpp"
#include "hetsched/runtime/local_machine.hpp"
#include "hetsched/runtime/runtime_dag.hpp"
#include "runtime/cuda_driver_api.hpp"

namespace hetsched {
namespace {

constexpr std::uint32_t kSide = 24;  // not a multiple of the OpenCL tile: edges are exercised

KernelCall call_of(KernelId kernel, std::uint32_t n, std::vector<HandleId> handles) {
  KernelCall call;
  call.kernel = kernel;
  call.n = n;
  const auto signature = kernel_signature(kernel);
  for (HandleId h : handles) {
    call.access[call.handle_count] = signature[call.handle_count];
    call.handles[call.handle_count++] = h;
  }
  return call;
}

std::vector<double> random_square_matrix(Rng& rng, std::uint32_t n) {
  std::vector<double> m(std::size_t(n) * n);
  for (double& x : m) x = rng.uniform(-1, 1);
  return m;
}

std::vector<double> spd_matrix(Rng& rng, std::uint32_t n) {
  auto m = random_square_matrix(rng, n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i];
  for (std::uint32_t i = 0; i < n; ++i) m[i * n + i] += n;
  return m;
}

void put(DataRegistry& data, HandleId h, const std::vector<double>& values) {
  std::memcpy(data.data(h), values.data(), values.size() * sizeof(double));
}
std::vector<double> get(const DataRegistry& data, HandleId h) {
  const auto v = data.view<double>(h);
  return {v.begin(), v.end()};
}

// Runs `call` on the CPU or on the OpenCL device, over a fresh copy of `data`'s contents.
using Runner = std::function<Status(const KernelCall&, DataRegistry&)>;

class KernelLibraryTest : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    devices_ = new LocalDevices(LocalDevicesOptions{1, true, false, true});
  }
  static void TearDownTestSuite() {
    delete devices_;
    devices_ = nullptr;
  }
  Runner runner() {
    if (std::string(GetParam()) == "cpu")
      return [](const KernelCall& c, DataRegistry& d) { return run_cpu_kernel(c, d); };
    if (std::string(GetParam()) == "cuda") {
      // Instantiated only where a driver loads (kernel_devices): a device must be found.
      if (devices_->cuda_devices().empty()) return nullptr;
      CudaDevice* device = devices_->cuda_devices().front().get();
      return [device](const KernelCall& c, DataRegistry& d) { return device->run(c, d); };
    }
    if (devices_->opencl_devices().empty()) return nullptr;
    OpenClDevice* device = devices_->opencl_devices().front().get();
    return [device](const KernelCall& c, DataRegistry& d) { return device->run(c, d); };
  }
  static LocalDevices* devices_;
};
LocalDevices* KernelLibraryTest::devices_ = nullptr;

#define GET_RUNNER()     \
  Runner run = runner(); \
  ASSERT_TRUE(run) << "no " << GetParam() << " device: " << devices_->notice();

TEST_P(KernelLibraryTest, GemmAndGemmNtMatchLoops) {
  GET_RUNNER();
  Rng rng(3);
  const std::uint32_t n = kSide;
  DataRegistry data;
  const auto a = random_square_matrix(rng, n), b = random_square_matrix(rng, n),
             c = random_square_matrix(rng, n);
  const HandleId ha = data.add(a.size() * 8), hb = data.add(b.size() * 8),
                 hc = data.add(c.size() * 8);
  put(data, ha, a), put(data, hb, b), put(data, hc, c);
  ASSERT_TRUE(run(call_of(KernelId::gemm, n, {ha, hb, hc}), data));
  auto out = get(data, hc);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      double expected = c[i * n + j];
      for (std::uint32_t k = 0; k < n; ++k) expected += a[i * n + k] * b[k * n + j];
      ASSERT_NEAR(out[i * n + j], expected, 1e-10) << i << "," << j;
    }
  put(data, hc, c);
  data.bump_version(hc);
  ASSERT_TRUE(run(call_of(KernelId::gemm_nt, n, {ha, hb, hc}), data));
  out = get(data, hc);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      double expected = c[i * n + j];
      for (std::uint32_t k = 0; k < n; ++k) expected -= a[i * n + k] * b[j * n + k];
      ASSERT_NEAR(out[i * n + j], expected, 1e-10);
    }
}

TEST_P(KernelLibraryTest, SyrkUpdatesTheLowerTriangle) {
  GET_RUNNER();
  Rng rng(4);
  const std::uint32_t n = kSide;
  DataRegistry data;
  const auto a = random_square_matrix(rng, n), c = random_square_matrix(rng, n);
  const HandleId ha = data.add(a.size() * 8), hc = data.add(c.size() * 8);
  put(data, ha, a), put(data, hc, c);
  ASSERT_TRUE(run(call_of(KernelId::syrk, n, {ha, hc}), data));
  const auto out = get(data, hc);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j <= i; ++j) {
      double expected = c[i * n + j];
      for (std::uint32_t k = 0; k < n; ++k) expected -= a[i * n + k] * a[j * n + k];
      ASSERT_NEAR(out[i * n + j], expected, 1e-10);
    }
}

TEST_P(KernelLibraryTest, PotrfAndTrsmSolveTheirEquations) {
  GET_RUNNER();
  Rng rng(5);
  const std::uint32_t n = kSide;
  DataRegistry data;
  const auto a = spd_matrix(rng, n), b = random_square_matrix(rng, n);
  const HandleId ha = data.add(a.size() * 8), hb = data.add(b.size() * 8);
  put(data, ha, a), put(data, hb, b);
  ASSERT_TRUE(run(call_of(KernelId::potrf, n, {ha}), data));
  const auto l = get(data, ha);
  for (std::uint32_t i = 0; i < n; ++i)  // L·Lᵀ = A on the lower triangle
    for (std::uint32_t j = 0; j <= i; ++j) {
      double sum = 0;
      for (std::uint32_t k = 0; k <= j; ++k) sum += l[i * n + k] * l[j * n + k];
      ASSERT_NEAR(sum, a[i * n + j], 1e-9);
    }
  ASSERT_TRUE(run(call_of(KernelId::trsm, n, {ha, hb}), data));
  const auto x = get(data, hb);
  for (std::uint32_t i = 0; i < n; ++i)  // X·Lᵀ = B
    for (std::uint32_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::uint32_t k = 0; k <= j; ++k) sum += x[i * n + k] * l[j * n + k];
      ASSERT_NEAR(sum, b[i * n + j], 1e-9);
    }
}

TEST_P(KernelLibraryTest, PotrfReportsAMatrixThatIsNotPositiveDefinite) {
  GET_RUNNER();
  DataRegistry data;
  const HandleId h = data.add(16 * 16 * 8);
  for (double& x : data.view<double>(h)) x = -1;
  const Status ran = run(call_of(KernelId::potrf, 16, {h}), data);
  ASSERT_FALSE(ran.has_value());
  EXPECT_NE(ran.error().find("positive definite"), std::string::npos) << ran.error();
}

TEST_P(KernelLibraryTest, StencilMatchesTheFivePointFormula) {
  GET_RUNNER();
  Rng rng(6);
  const std::uint32_t n = kSide;
  DataRegistry data;
  const auto in = random_square_matrix(rng, n);
  const HandleId hi = data.add(in.size() * 8), ho = data.add(in.size() * 8);
  put(data, hi, in);
  ASSERT_TRUE(run(call_of(KernelId::stencil, n, {hi, ho}), data));
  const auto out = get(data, ho);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::size_t c = i * n + j;
      const bool edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      const double expected =
          edge ? in[c] : (in[c] + in[c - n] + in[c + n] + in[c - 1] + in[c + 1]) / 5;
      ASSERT_NEAR(out[c], expected, 1e-12);
    }
}

TEST_P(KernelLibraryTest, ReductionSumsEveryElement) {
  GET_RUNNER();
  const std::uint32_t n = 10007;
  DataRegistry data;
  const HandleId hi = data.add(n * 8), ho = data.add(8);
  auto in = data.view<double>(hi);
  for (std::uint32_t i = 0; i < n; ++i) in[i] = 1.0 + (i % 7);
  double expected = 0;
  for (std::uint32_t i = 0; i < n; ++i) expected += in[i];
  ASSERT_TRUE(run(call_of(KernelId::reduction, n, {hi, ho}), data));
  EXPECT_DOUBLE_EQ(data.view<double>(ho)[0], expected);  // small integers: exact in any order
}

TEST_P(KernelLibraryTest, SortOrdersAPermutation) {
  GET_RUNNER();
  const std::uint32_t n = 4096;
  DataRegistry data;
  const HandleId h = data.add(n * 4);
  Rng rng(7);
  auto keys = data.view<std::uint32_t>(h);
  for (auto& k : keys) k = std::uint32_t(rng.below(1000));
  std::vector<std::uint32_t> expected(keys.begin(), keys.end());
  std::sort(expected.begin(), expected.end());
  ASSERT_TRUE(run(call_of(KernelId::sort, n, {h}), data));
  const auto out = data.view<std::uint32_t>(h);
  EXPECT_TRUE(std::equal(out.begin(), out.end(), expected.begin()));
}

TEST_P(KernelLibraryTest, BfsLevelsMatchAQueueSearch) {
  GET_RUNNER();
  const std::uint32_t n = 500;
  std::vector<std::int32_t> csr;
  fill_random_graph(csr, n, 2, 11);
  DataRegistry data;
  const HandleId hg = data.add(csr.size() * 4), hl = data.add(n * 4);
  std::memcpy(data.data(hg), csr.data(), csr.size() * 4);
  ASSERT_TRUE(run(call_of(KernelId::bfs, n, {hg, hl}), data));
  // Reference: Bellman-style relaxation until nothing changes (independent of any queue order).
  std::vector<std::int32_t> level(n, -1);
  level[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t v = 0; v < n; ++v)
      if (level[v] >= 0)
        for (std::int32_t e = csr[v]; e < csr[v + 1]; ++e) {
          const auto u = csr[n + 1 + e];
          if (level[u] == -1 || level[u] > level[v] + 1) {
            level[u] = level[v] + 1;
            changed = true;
          }
        }
  }
  const auto out = data.view<std::int32_t>(hl);
  EXPECT_TRUE(std::equal(out.begin(), out.end(), level.begin()));
}

// Every kernel on the CPU, on OpenCL (PoCL here) and, where a CUDA driver loads in a build
// with CUDA workers, on CUDA. A machine without a driver has no CUDA case at all rather
// than a skipped one; the no-driver path has its own tests (cuda_device_test.cpp).
std::vector<const char*> kernel_devices() {
  std::vector<const char*> devices{"cpu", "opencl"};
  std::string why;
  if (cuda_workers_built() && cuda::driver_api(why) != nullptr) devices.push_back("cuda");
  return devices;
}

INSTANTIATE_TEST_SUITE_P(Devices, KernelLibraryTest, ::testing::ValuesIn(kernel_devices()));

}  // namespace
}  // namespace hetsched
