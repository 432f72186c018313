#include "hetsched/cluster/device_catalog.hpp"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(DeviceCatalog, EveryPartLoadsWithPositiveFigures) {
  ASSERT_GE(device_catalog().size(), 13u);
  for (const DeviceSpec& spec : device_catalog()) {
    SCOPED_TRACE(spec.model);
    EXPECT_GT(spec.memory_bytes, 0);
    EXPECT_GT(spec.memory_bandwidth, 0);
    EXPECT_GT(spec.peak_watts, spec.idle_watts);
    EXPECT_GT(spec.idle_watts, 0);
    EXPECT_GT(spec.mtbf_hours, 0);
    EXPECT_GT(spec.price_per_hour, 0);
    EXPECT_GT(spec.launch_overhead_seconds, 0);
    EXPECT_TRUE(spec.supports(Precision::fp32));
    ASSERT_FALSE(spec.pstates.empty());
    EXPECT_EQ(spec.pstates.front().speed_scale, 1.0);
    for (std::size_t i = 1; i < spec.pstates.size(); ++i) {
      EXPECT_LT(spec.pstates[i].speed_scale, spec.pstates[i - 1].speed_scale);
      EXPECT_LT(spec.pstates[i].power_scale,
                spec.pstates[i].speed_scale);  // slower is more efficient
    }
  }
}

TEST(DeviceCatalog, RequiredPartsArePresent) {
  for (const char* model : {"K80", "P100", "V100", "T4", "L4", "A100-80GB", "H100-SXM", "H200",
                            "TPU-v4", "TPU-v5e", "TPU-v5p", "EPYC-9654", "Xeon-8480+"})
    EXPECT_NE(find_catalog_part(model), nullptr) << model;
  EXPECT_NE(find_catalog_part("h100-sxm"), nullptr);  // case-insensitive
  EXPECT_EQ(find_catalog_part("H10"), nullptr);
}

TEST(DeviceCatalog, DatasheetFiguresOfH100AndTpu) {
  const DeviceSpec& h100 = *find_catalog_part("H100-SXM");
  EXPECT_DOUBLE_EQ(h100.vector_flops[static_cast<int>(Precision::fp64)], 34e12);
  EXPECT_DOUBLE_EQ(h100.matrix_flops[static_cast<int>(Precision::fp64)], 67e12);
  EXPECT_DOUBLE_EQ(h100.matrix_flops[static_cast<int>(Precision::fp16)], 989e12);
  EXPECT_DOUBLE_EQ(h100.matrix_flops[static_cast<int>(Precision::int8)], 1979e12);
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 80e9);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.peak_watts, 700);
  const DeviceSpec& h200 = *find_catalog_part("H200");
  EXPECT_DOUBLE_EQ(h200.memory_bytes, 141e9);
  EXPECT_EQ(h200.matrix_flops, h100.matrix_flops);
  const DeviceSpec& v4 = *find_catalog_part("TPU-v4");
  EXPECT_FALSE(v4.supports(Precision::fp64));
  EXPECT_DOUBLE_EQ(v4.matrix_flops[static_cast<int>(Precision::fp16)], 275e12);
  const DeviceSpec& epyc = *find_catalog_part("EPYC-9654");
  EXPECT_EQ(epyc.compute_units, 96);
  EXPECT_EQ(epyc.kind, DeviceKind::cpu);
}

}  // namespace
}  // namespace hetsched
