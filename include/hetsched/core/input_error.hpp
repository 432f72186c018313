// InputError: bad user input, reported as one line "file:line:column: message". The line
// is always printable UTF-8: bytes of the input that are not (binary files, control
// characters, a NUL) are shown as \xHH, so a message never echoes raw bytes to a terminal.
// Parsers and validators throw it; the CLI catches it at the boundary, prints the
// line and exits with status 2. Expected run-time outcomes are values, not this.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hetsched {

struct SourcePosition {
  std::string file;  // empty when the input did not come from a file
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourcePosition where, const std::string& message);
  explicit InputError(const std::string& message) : InputError(SourcePosition{}, message) {}

  const SourcePosition& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourcePosition where_;
  std::string message_;
};

// `text` as printable UTF-8: well-formed sequences kept, every other byte and every
// control character written as \xHH.
std::string printable_text(std::string_view text);

// "file:line:column: " (the parts that are known), for messages built by hand.
std::string format_position(const SourcePosition& where);

}  // namespace hetsched
