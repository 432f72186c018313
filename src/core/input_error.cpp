#include "hetsched/core/input_error.hpp"

namespace hetsched {

std::string format_position(const SourcePosition& where) {
  std::string out;
  if (!where.file.empty()) out += where.file + ":";
  if (where.line > 0) {
    out += std::to_string(where.line) + ":";
    if (where.column > 0) out += std::to_string(where.column) + ":";
  }
  if (!out.empty()) out += " ";
  return out;
}

InputError::InputError(SourcePosition where, const std::string& message)
    : std::runtime_error(format_position(where) + message),
      where_(std::move(where)),
      message_(message) {}

}  // namespace hetsched
