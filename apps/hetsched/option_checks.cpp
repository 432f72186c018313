#include "option_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hetsched::cli {

double parse_option_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range) return std::numeric_limits<double>::infinity();
  if (error != std::errc() || ptr != end) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

namespace {

CLI::Validator finite_option_check(double min, double max, std::string description) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const double value = parse_option_number(text);
        if (!std::isfinite(value)) return fmt::format("expected a finite number, got '{}'", text);
        if (value < min || value > max)
          return fmt::format("expected a number in [{}, {}], got {}", min, max, text);
        return "";
      },
      std::move(description));
}

}  // namespace

CLI::Validator finite_range(double min, double max) {
  return finite_option_check(min, max, fmt::format("[{} - {}]", min, max));
}

const CLI::Validator finite_non_negative =
    finite_option_check(0, std::numeric_limits<double>::max(), "NONNEGATIVE");
const CLI::Validator finite_positive = finite_option_check(
    std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(), "POSITIVE");

const CLI::Validator seed_value(
    [](std::string& text) -> std::string {
      std::uint64_t seed = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, error] = std::from_chars(text.data(), end, seed);
      if (text.empty() || text.front() == '-' || text.front() == '+' || error != std::errc() ||
          ptr != end)
        return fmt::format("expected a seed from 0 to {}, got '{}'",
                           std::numeric_limits<std::uint64_t>::max(), text);
      return "";
    },
    "SEED");

void check_every_seed(CLI::App& app) {
  if (CLI::Option* seed = app.get_option_no_throw("--seed")) seed->check(seed_value);
  for (CLI::App* sub : app.get_subcommands({})) check_every_seed(*sub);
}

}  // namespace hetsched::cli
