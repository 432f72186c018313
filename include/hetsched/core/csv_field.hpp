// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line
// break (quotes doubled), as is otherwise.
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

inline std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace hetsched
