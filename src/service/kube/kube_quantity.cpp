// Kubernetes quantity grammar (k8s.io/apimachinery/pkg/api/resource):
//   quantity ::= sign? number suffix
//   number   ::= digits | digits "." digits? | "." digits
//   suffix   ::= binarySI | decimalSI | ("e" | "E") sign? digits
// "E" alone is the decimal-SI exa suffix; "E" followed by digits is an exponent.
#include "hetsched/service/kube/kube_quantity.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "hetsched/core/input_error.hpp"

namespace hetsched {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<double> suffix_multiplier(std::string_view suffix) {
  static constexpr std::array<std::pair<std::string_view, double>, 14> table{{
      {"", 1.0},
      {"n", 1e-9},
      {"u", 1e-6},
      {"m", 1e-3},
      {"k", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"P", 1e15},
      {"E", 1e18},
      {"Ki", 1024.0},
      {"Mi", 1024.0 * 1024.0},
      {"Gi", 1024.0 * 1024.0 * 1024.0},
      {"Ti", 1024.0 * 1024.0 * 1024.0 * 1024.0},
  }};
  for (const auto& [name, factor] : table)
    if (suffix == name) return factor;
  if (suffix == "Pi") return std::pow(1024.0, 5);
  if (suffix == "Ei") return std::pow(1024.0, 6);
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view exponent = suffix.substr(1);
    int sign = 1;
    if (exponent[0] == '+' || exponent[0] == '-') {
      sign = exponent[0] == '-' ? -1 : 1;
      exponent.remove_prefix(1);
    }
    if (exponent.empty() || exponent.size() > 4) return std::nullopt;
    int value = 0;
    for (char c : exponent) {
      if (!is_digit(c)) return std::nullopt;
      value = value * 10 + (c - '0');
    }
    return std::pow(10.0, sign * value);
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_kube_quantity(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  const std::size_t number_begin = i;
  std::size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  const std::string number(text.substr(number_begin, i - number_begin));
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  const auto multiplier = suffix_multiplier(text.substr(i));
  if (!multiplier) return std::nullopt;
  const double result = (negative ? -value : value) * *multiplier;
  if (!std::isfinite(result)) return std::nullopt;
  return result;
}

double require_kube_quantity(std::string_view text, std::string_view what) {
  if (auto value = parse_kube_quantity(text)) return *value;
  throw InputError(std::string(what) + ": '" + std::string(text) +
                   "' is not a Kubernetes quantity (expected e.g. 500m, 2, 1.5Gi, 4k, 1e9)");
}

}  // namespace hetsched
