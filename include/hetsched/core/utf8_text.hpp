// Checks on text that must be UTF-8 and printable: where a byte sequence stops being
// well-formed UTF-8 (RFC 3629), and where the first ASCII control character is. Used by
// InputError's printable form, by the readers' text fields and by the service, which
// checks request bodies before any parser sees them.
#pragma once

#include <cstddef>
#include <string_view>

namespace hetsched {

// Length of the well-formed UTF-8 sequence at text[i] (no overlong forms, no surrogates,
// at most U+10FFFF), or 0 when the bytes there are not one. `i` must be < text.size().
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Byte offset of the first byte of `text` that does not begin a well-formed UTF-8
// sequence, or std::string_view::npos when all of it is UTF-8.
std::size_t invalid_utf8_offset(std::string_view text);

// Byte offset of the first ASCII control character (U+0000 to U+001F, U+007F: NUL, tab,
// line breaks, escape ...) in `text`, or std::string_view::npos when there is none.
std::size_t control_character_offset(std::string_view text);

}  // namespace hetsched
