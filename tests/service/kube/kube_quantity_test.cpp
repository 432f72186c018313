#include "hetsched/service/kube/kube_quantity.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/core/input_error.hpp"

namespace hetsched {
namespace {

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;

TEST(KubeQuantity, ReadsMillicoresAndPlainNumbers) {
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("250m"), 0.25);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("2"), 2.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("191450m"), 191.45);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity(".5"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1."), 1.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("+3"), 3.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("-1"), -1.0);
}

TEST(KubeQuantity, ReadsBinaryAndDecimalSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1.5Gi"), 1.5 * kGi);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("123Mi"), 123 * kMi);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("2083000000Ki"), 2083000000 * kKi);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1Ti"), kGi * 1024.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1Pi"), std::pow(1024.0, 5));
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1Ei"), std::pow(1024.0, 6));
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("4k"), 4000.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("129M"), 129e6);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("200G"), 200e9);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("3T"), 3e12);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("500T"), 500e12);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1P"), 1e15);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("2E"), 2e18);  // exa, not an exponent
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("10u"), 10e-6);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("10n"), 10e-9);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("128974848"), 128974848.0);
}

TEST(KubeQuantity, ReadsDecimalExponents) {
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("129e6"), 129e6);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("4e15"), 4e15);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1E3"), 1000.0);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("5e-3"), 0.005);
  EXPECT_DOUBLE_EQ(*parse_kube_quantity("1.5e+2"), 150.0);
}

TEST(KubeQuantity, RejectsWhatIsNotAQuantity) {
  for (const char* text : {"", "abc", "1.5Q", "Gi", "1 Gi", "1.2.3", "--1", "1e", "1e+", "m", "1gi",
                           "1KI", "1Ki ", " 1", ".", "1.5Gi2", "0x10", "1e99999"})
    EXPECT_FALSE(parse_kube_quantity(text).has_value()) << "'" << text << "'";
}

TEST(KubeQuantity, RequireNamesTheFieldInItsError) {
  EXPECT_DOUBLE_EQ(require_kube_quantity("1.5Gi", "memory"), 1.5 * kGi);
  try {
    require_kube_quantity("1.5Qi", "spec.containers[0].resources.requests.memory");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("spec.containers[0].resources.requests.memory"), std::string::npos);
    EXPECT_NE(e.message().find("'1.5Qi'"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetsched
