// check_input_syntax: whether a YAML or JSON text parses, read by the same document reader
// as every cluster and workload file (simdjson or libyaml, nesting at most 256 levels deep,
// UTF-8), without keeping the result. For text whose kind is not known yet: the syntax
// error, with its line and column, comes first and in bounded memory.
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

// Throws InputError (file:line:column) when `text` is not one well-formed document.
void check_input_syntax(std::string_view text, const std::string& file);

}  // namespace hetsched
