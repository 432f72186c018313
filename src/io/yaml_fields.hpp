// Internal helpers for the YAML/JSON input boundary: parse a document (InputDocument;
// syntax errors become InputError with file:line:column), read a map's fields with type
// and range checks, and reject unknown or repeated fields with the closest valid names.
// Not a public header.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "input_document.hpp"

namespace hetsched::io_detail {

// The first YAML (or JSON) document in `text`, whose root is a map. Syntax errors, an
// empty document and a root that is not a map are InputErrors; `top_level_fields` lists
// the fields the root map may have, for the message about an empty file. `text` must
// outlive the document.
InputDocument parse_document(std::string_view text, const std::string& file,
                             std::string_view top_level_fields, std::size_t room_after = 0);

// "unknown <what> 'x' in <context> (closest: a, b, c)", built on unknown_name_message.
std::string unknown_name_in(std::string_view what, std::string_view wrong,
                            const std::vector<std::string>& valid, std::string_view context);

// 1-based position of a node (line and column 0 when unknown), naming `file`: the file,
// or in a request body the field's path ("body.jobs[2].gang"), as the service reports it.
SourcePosition position_of(const InputNode& node, const std::string& file);

// What a value is, for messages: "'abc'", "a list", "a map", "nothing".
std::string describe_value(const InputNode& node);
// Text quoted for a one-line message: control characters replaced, long text shortened.
std::string quote_for_message(std::string_view text);

// Which values a number field accepts.
enum class NumberRange : std::uint8_t {
  non_negative,  // >= 0
  positive,      // > 0
  fraction,      // in (0, 1]
  any,           // any finite number
};

// Largest magnitude a number in an input file may have: far beyond any FLOP count, byte
// count or time hetsched models (1e30 FLOP is a million years of an exaflop machine), and
// small enough that sums and products of such figures stay finite in every report.
inline constexpr double kLargestInputNumber = 1e30;

// A finite number from a scalar value, checked against `range`, times `scale` (a unit
// conversion; a product that overflows is rejected too).
double number_value(const InputNode& value, std::string_view field, NumberRange range,
                    const std::string& file, double scale = 1.0);
// A finite number as number_value does, or infinity spelled .inf or inf (any case,
// optional +): for durations where "never" is meaningful (a device that is never repaired).
double number_or_infinity_value(const InputNode& value, std::string_view field, NumberRange range,
                                const std::string& file);
// A whole number within [min, max].
std::int64_t whole_number_value(const InputNode& value, std::string_view field, std::int64_t min,
                                std::int64_t max, const std::string& file);
// A whole number from 0 to 2^64 - 1, read exactly (a seed), in decimal digits.
std::uint64_t unsigned_whole_number_value(const InputNode& value, std::string_view field,
                                          const std::string& file);
// true or false in YAML's spellings: true/false, yes/no, y/n, on/off, each lower case,
// upper case or capitalised (JSON's true and false among them).
bool boolean_value(const InputNode& value, std::string_view field, const std::string& file);
// A scalar as a string; with `allow_empty` false an empty string is rejected. A control
// character (NUL, a line break, escape ...) in the text is rejected.
std::string string_value(const InputNode& value, std::string_view field, const std::string& file,
                         bool allow_empty = false);
// Checks the value is a list (a sequence) and returns its length.
std::size_t list_length(const InputNode& value, std::string_view field, const std::string& file);
// Checks the value is a map.
void require_map(const InputNode& value, std::string_view what, const std::string& file);

// Whether two field names are the same: `a == b`, with the first byte compared before
// the rest (field names of one map differ early; a big file has millions of them).
inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a.front() == b.front() && a == b));
}

// The fields of one map, checked once on construction: the value is a map, every
// key is a scalar naming one of `allowed_fields`, and no key is given twice.
class FieldReader {
 public:
  // `file` must outlive the reader. With a `field_path` ("body.jobs[2]"), errors name the
  // field's path ("body.jobs[2].gang") in place of the file, as the service reports them.
  FieldReader(const InputNode& map, std::string what, const std::string& file,
              const std::vector<std::string>& allowed_fields, std::string field_path = {});
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;

  const std::string& what() const { return what_; }
  const std::string& file() const { return file_; }
  SourcePosition position() const { return position_of(map_, path_.empty() ? file_ : path_); }
  // What errors about `field` name as their file: the file, or the field's path. Valid
  // until the next call.
  const std::string& name_of(std::string_view field) const;

  bool has(std::string_view field) const { return find(field) != nullptr; }
  // The value of a field, or nullptr when absent.
  const InputNode* find(std::string_view field) const {
    for (const Field& f : fields())
      if (same_name(f.name, field)) return &f.value;
    return nullptr;
  }
  // The value of a field that must be present ("<what> is missing required field 'x'").
  const InputNode& required(std::string_view field) const;
  // Position of a field's value, or of the map when the field is absent.
  SourcePosition position_of_field(std::string_view field) const;

  std::string required_string(std::string_view field) const;
  std::optional<std::string> optional_string(std::string_view field) const;
  double required_number(std::string_view field, NumberRange range, double scale = 1.0) const;
  std::optional<double> optional_number(std::string_view field, NumberRange range,
                                        double scale = 1.0) const;
  std::optional<std::int64_t> optional_whole_number(std::string_view field, std::int64_t min,
                                                    std::int64_t max) const;
  std::optional<bool> optional_boolean(std::string_view field) const;

 private:
  struct Field {
    std::string_view name;  // in the document
    InputNode key;
    InputNode value;
  };
  // Maps of up to kInlineFields fields (all the formats' maps) need no allocation: a
  // reader is made for every task of a big file.
  static constexpr std::size_t kInlineFields = 16;
  std::span<const Field> fields() const {
    return count_ <= kInlineFields ? std::span<const Field>(inline_fields_.data(), count_)
                                   : std::span<const Field>(more_fields_);
  }

  InputNode map_;
  std::string what_;
  const std::string& file_;
  std::string path_;                // empty: errors name the file
  mutable std::string field_name_;  // name_of's result with a path
  std::size_t count_ = 0;
  std::array<Field, kInlineFields> inline_fields_;
  std::vector<Field> more_fields_;  // used instead when the map has more fields
};

}  // namespace hetsched::io_detail
