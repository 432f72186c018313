#include "hetsched/core/delimited_text.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace hetsched::delimited_text {

std::vector<std::string_view> split(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    if (end == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> result;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    result.push_back(line);
    start = end + 1;
  }
  return result;
}

double parse_number(std::string_view field, const SourcePosition& where, std::string_view what) {
  double value = 0;
  const char* first = field.data();
  const char* last = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (field.empty() || ec != std::errc{} || ptr != last || !std::isfinite(value))
    throw InputError(where,
                     std::string(what) + ": expected a number, got '" + std::string(field) + "'");
  return value;
}

int parse_integer(std::string_view field, const SourcePosition& where, std::string_view what) {
  int value = 0;
  const char* first = field.data();
  const char* last = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (field.empty() || ec != std::errc{} || ptr != last)
    throw InputError(where,
                     std::string(what) + ": expected an integer, got '" + std::string(field) + "'");
  return value;
}

}  // namespace hetsched::delimited_text
