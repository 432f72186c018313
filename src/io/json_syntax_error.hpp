// Where nlohmann's parser stops on a JSON text and why: the readers that meet a JSON error
// without a position (simdjson's, a number beyond a double's range) ask it for one. Only
// the error path runs it. Not a public header.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hetsched::io_detail {

struct JsonSyntaxError {
  std::size_t offset = 0;  // 0-based byte offset of the byte the parser stopped at
  std::string what;        // nlohmann's exception text, "[json.exception...] ...: why"
};

std::optional<JsonSyntaxError> first_json_syntax_error(std::string_view text);

}  // namespace hetsched::io_detail
