// Checked reading of YAML/JSON values for the cluster and workload loaders: every
// syntax error and every wrong type, range or name becomes an InputError that names the
// file, the 1-based line and column, and what was expected.
#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/utf8_text.hpp"

namespace hetsched::io_detail {
namespace {

// YAML spells infinity and not-a-number as .inf (optional sign) and .nan, in any case.
std::optional<double> yaml_special_float(std::string_view text) {
  const auto same = [](std::string_view a, std::string_view lower) {
    return a.size() == lower.size() &&
           std::equal(a.begin(), a.end(), lower.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == y;
           });
  };
  if (same(text, ".nan")) return std::nan("");
  const bool negative = !text.empty() && text.front() == '-';
  if (!text.empty() && (text.front() == '+' || negative)) text.remove_prefix(1);
  if (same(text, ".inf")) return negative ? -HUGE_VAL : HUGE_VAL;
  return std::nullopt;
}

// A decimal number (as YAML and JSON write them) taking up the whole text.
// (YAML's .inf and .nan, which no decimal number matches, are tried last.)
std::optional<double> parse_number(const std::string_view written) {
  std::string_view text = written;
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (stop != end) return yaml_special_float(written);
  if (error == std::errc::result_out_of_range) {
    // Too large becomes infinity (rejected as not finite); too small becomes zero.
    const std::size_t exponent = text.find_first_of("eE");
    const bool tiny = exponent != std::string_view::npos && exponent + 1 < text.size() &&
                      text[exponent + 1] == '-';
    const bool negative = text.front() == '-';
    if (tiny) return negative ? -0.0 : 0.0;
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  if (error != std::errc()) return std::nullopt;
  return value;
}

std::string range_text(NumberRange range) {
  switch (range) {
    case NumberRange::non_negative:
      return "a number >= 0";
    case NumberRange::positive:
      return "a number > 0";
    case NumberRange::fraction:
      return "a number in (0, 1]";
    case NumberRange::any:
      return "a number";
  }
  return "a number";
}

bool in_range(double value, NumberRange range) {
  switch (range) {
    case NumberRange::non_negative:
      return value >= 0;
    case NumberRange::positive:
      return value > 0;
    case NumberRange::fraction:
      return value > 0 && value <= 1;
    case NumberRange::any:
      return true;
  }
  return false;
}

}  // namespace

std::string unknown_name_in(std::string_view what, std::string_view wrong,
                            const std::vector<std::string>& valid, std::string_view context) {
  std::string message = unknown_name_message(what, wrong, valid);
  const std::size_t name_end =
      std::string_view("unknown ").size() + what.size() + 2 + wrong.size() + 1;
  message.insert(std::min(name_end, message.size()), " in " + std::string(context));
  return message;
}

SourcePosition position_of(const InputNode& node, const std::string& file) {
  if (!node.is_defined()) return SourcePosition{file, 0, 0};
  SourcePosition where = node.position();
  where.file = file;
  return where;
}

std::string quote_for_message(std::string_view text) {
  constexpr std::size_t kMaxShown = 60;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

std::string describe_value(const InputNode& node) {
  if (!node.is_defined() || node.is_null()) return "nothing";
  if (node.is_sequence()) return "a list";
  if (node.is_map()) return "a map";
  return quote_for_message(node.scalar());
}

InputDocument parse_document(std::string_view text, const std::string& file,
                             std::string_view top_level_fields, std::size_t room_after) {
  InputDocument document(text, file, room_after);
  const InputNode root = document.root();
  if (!root.is_defined() || root.is_null())
    throw InputError(
        SourcePosition{file, 0, 0},
        fmt::format("the file is empty (it holds no YAML value); expected a map with {}",
                    top_level_fields));
  if (!root.is_map())
    throw InputError(position_of(root, file),
                     fmt::format("expected a map with {} at the top level, got {}",
                                 top_level_fields, describe_value(root)));
  return document;
}

double number_value(const InputNode& value, std::string_view field, NumberRange range,
                    const std::string& file, double scale) {
  // Positions and messages are made only on an error: this runs for every number read.
  std::optional<double> number;
  if (value.is_scalar()) number = parse_number(value.scalar());
  if (!number)
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects {}, got {}", field, range_text(range),
                                 describe_value(value)));
  if (!std::isfinite(*number))
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects a finite number{}, got {}", field,
                                 range_text(range).substr(std::string_view("a number").size()),
                                 describe_value(value)));
  if (!in_range(*number, range))
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects {}, got {}", field, range_text(range),
                                 describe_value(value)));
  if (std::fabs(*number) > kLargestInputNumber)
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects a magnitude of at most {:g}, got {}", field,
                                 kLargestInputNumber, describe_value(value)));
  const double scaled = *number * scale;
  if (!std::isfinite(scaled))
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' is too large: {}", field, describe_value(value)));
  return scaled;
}

double number_or_infinity_value(const InputNode& value, std::string_view field, NumberRange range,
                                const std::string& file) {
  if (value.is_scalar()) {
    std::string_view text = value.scalar();
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (!text.empty() && text.front() == '.') text.remove_prefix(1);
    const auto lower = [](char c) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    if (text.size() == 3 && lower(text[0]) == 'i' && lower(text[1]) == 'n' && lower(text[2]) == 'f')
      return HUGE_VAL;  // every range accepts +infinity
  }
  return number_value(value, field, range, file);
}

std::uint64_t unsigned_whole_number_value(const InputNode& value, std::string_view field,
                                          const std::string& file) {
  std::string_view text = value.is_scalar() ? value.scalar() : std::string_view();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::uint64_t number = 0;
  const char* end = text.data() + text.size();
  const bool digits = !text.empty() && std::isdigit(static_cast<unsigned char>(text.front()));
  const auto [stop, error] = digits
                                 ? std::from_chars(text.data(), end, number)
                                 : std::from_chars_result{text.data(), std::errc::invalid_argument};
  if (error != std::errc() || stop != end)
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects a whole number from 0 to {}, got {}", field,
                                 std::numeric_limits<std::uint64_t>::max(), describe_value(value)));
  return number;
}

bool boolean_value(const InputNode& value, std::string_view field, const std::string& file) {
  // YAML 1.1's spellings: lower case, upper case or capitalised.
  static constexpr std::array<std::pair<std::string_view, bool>, 8> kSpellings{{{"true", true},
                                                                                {"false", false},
                                                                                {"yes", true},
                                                                                {"no", false},
                                                                                {"y", true},
                                                                                {"n", false},
                                                                                {"on", true},
                                                                                {"off", false}}};
  if (value.is_scalar()) {
    const std::string_view text = value.scalar();
    const bool all_lower = std::none_of(text.begin(), text.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c));
    });
    const bool all_upper = std::none_of(text.begin(), text.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c));
    });
    const bool capitalised =
        !text.empty() && std::isupper(static_cast<unsigned char>(text.front())) &&
        std::none_of(text.begin() + 1, text.end(),
                     [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    if (all_lower || all_upper || capitalised) {
      std::string lower(text);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (const auto& [spelling, truth] : kSpellings)
        if (lower == spelling) return truth;
    }
  }
  throw InputError(position_of(value, file), fmt::format("field '{}' expects true or false, got {}",
                                                         field, describe_value(value)));
}

std::int64_t whole_number_value(const InputNode& value, std::string_view field, std::int64_t min,
                                std::int64_t max, const std::string& file) {
  std::optional<double> number;
  if (value.is_scalar()) number = parse_number(value.scalar());
  // The magnitude bound keeps the conversion below defined whatever min and max are.
  constexpr double kLargestConvertible = 9.0e18;
  if (!number || !std::isfinite(*number) || std::floor(*number) != *number ||
      std::fabs(*number) > kLargestConvertible || *number < static_cast<double>(min) ||
      *number > static_cast<double>(max))
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects a whole number from {} to {}, got {}", field,
                                 min, max, describe_value(value)));
  return static_cast<std::int64_t>(*number);
}

std::string string_value(const InputNode& value, std::string_view field, const std::string& file,
                         bool allow_empty) {
  if (!value.is_scalar())
    throw InputError(position_of(value, file), fmt::format("field '{}' expects a string, got {}",
                                                           field, describe_value(value)));
  if (!allow_empty && value.scalar().empty())
    throw InputError(position_of(value, file),
                     fmt::format("field '{}' expects a non-empty string", field));
  // Names and other text fields end up in logs, listings and terminals: a NUL, a line
  // break or an escape sequence inside one is refused rather than passed on.
  if (const std::size_t at = control_character_offset(value.scalar()); at != std::string_view::npos)
    throw InputError(
        position_of(value, file),
        fmt::format("field '{}' holds a control character (byte 0x{:02X} at byte {} of "
                    "the text); text fields must be printable",
                    field, static_cast<unsigned char>(value.scalar()[at]), at + 1));
  return std::string(value.scalar());
}

std::size_t list_length(const InputNode& value, std::string_view field, const std::string& file) {
  if (!value.is_sequence())
    throw InputError(position_of(value, file), fmt::format("field '{}' expects a list, got {}",
                                                           field, describe_value(value)));
  return value.size();
}

void require_map(const InputNode& value, std::string_view what, const std::string& file) {
  if (!value.is_map())
    throw InputError(position_of(value, file),
                     fmt::format("{} expects a map, got {}", what, describe_value(value)));
}

FieldReader::FieldReader(const InputNode& map, std::string what, const std::string& file,
                         const std::vector<std::string>& allowed_fields, std::string field_path)
    : map_(map), what_(std::move(what)), file_(file), path_(std::move(field_path)) {
  require_map(map_, what_, path_.empty() ? file_ : path_);
  count_ = map_.size();
  if (count_ > kInlineFields) more_fields_.resize(count_);
  Field* fields = count_ <= kInlineFields ? inline_fields_.data() : more_fields_.data();
  std::uint64_t seen = 0;  // which of the first 64 allowed fields were given
  for (std::size_t i = 0; i < count_; ++i) {
    const InputNode key = map_.key_at(i);
    if (!key.is_scalar())
      throw InputError(position_of(key, path_.empty() ? file_ : path_),
                       fmt::format("{} has a field name that is {}", what_, describe_value(key)));
    const std::string_view name = key.scalar();
    const auto allowed =
        std::find_if(allowed_fields.begin(), allowed_fields.end(),
                     [name](const std::string& field) { return same_name(field, name); });
    if (allowed == allowed_fields.end()) {
      throw InputError(position_of(key, name_of(name)),
                       unknown_name_in("field", name, allowed_fields, what_));
    }
    const auto which = static_cast<std::size_t>(allowed - allowed_fields.begin());
    const bool given_before = which < 64 ? (seen >> which & 1u) != 0 : true;
    if (which < 64) seen |= std::uint64_t{1} << which;
    for (std::size_t earlier = 0; given_before && earlier < i; ++earlier) {
      if (!same_name(fields[earlier].name, name)) continue;
      const SourcePosition first = position_of(fields[earlier].key, file_);
      throw InputError(position_of(key, name_of(name)),
                       fmt::format("field '{}' is given twice in {} (first at line {}, column {})",
                                   name, what_, first.line, first.column));
    }
    fields[i] = Field{name, key, map_.value_at(i)};
  }
}

const std::string& FieldReader::name_of(std::string_view field) const {
  if (path_.empty()) return file_;
  field_name_ = path_;
  field_name_ += '.';
  field_name_ += field;
  return field_name_;
}

const InputNode& FieldReader::required(std::string_view field) const {
  if (const InputNode* value = find(field)) return *value;
  throw InputError(position_of(map_, name_of(field)),
                   fmt::format("{} is missing required field '{}'", what_, field));
}

SourcePosition FieldReader::position_of_field(std::string_view field) const {
  if (const InputNode* value = find(field)) return position_of(*value, name_of(field));
  return position_of(map_, name_of(field));
}

std::string FieldReader::required_string(std::string_view field) const {
  return string_value(required(field), field, name_of(field));
}

std::optional<std::string> FieldReader::optional_string(std::string_view field) const {
  if (const InputNode* value = find(field)) return string_value(*value, field, name_of(field));
  return std::nullopt;
}

double FieldReader::required_number(std::string_view field, NumberRange range, double scale) const {
  return number_value(required(field), field, range, name_of(field), scale);
}

std::optional<double> FieldReader::optional_number(std::string_view field, NumberRange range,
                                                   double scale) const {
  if (const InputNode* value = find(field))
    return number_value(*value, field, range, name_of(field), scale);
  return std::nullopt;
}

std::optional<std::int64_t> FieldReader::optional_whole_number(std::string_view field,
                                                               std::int64_t min,
                                                               std::int64_t max) const {
  if (const InputNode* value = find(field))
    return whole_number_value(*value, field, min, max, name_of(field));
  return std::nullopt;
}

std::optional<bool> FieldReader::optional_boolean(std::string_view field) const {
  if (const InputNode* value = find(field)) return boolean_value(*value, field, name_of(field));
  return std::nullopt;
}

}  // namespace hetsched::io_detail
