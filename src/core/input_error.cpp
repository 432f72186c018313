#include "hetsched/core/input_error.hpp"

#include <fmt/format.h>

#include "hetsched/core/utf8_text.hpp"

namespace hetsched {

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    if (length == 0 || (length == 1 && (c < 0x20 || c == 0x7f))) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

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
    : std::runtime_error(printable_text(format_position(where) + message)),
      where_(std::move(where)),
      message_(message) {}

}  // namespace hetsched
