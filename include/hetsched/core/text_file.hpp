// The one way hetsched reads an input file whole: a regular file of at most a size limit,
// or an InputError naming the file and saying why not (missing, a directory, a device,
// too large, unreadable). Every loader of a user's file goes through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hetsched {

// Largest file the loaders read, so a huge or endless file cannot exhaust memory.
inline constexpr std::uintmax_t kMaxInputFileBytes = 256u * 1024u * 1024u;

// Bytes the string read_text_file returns has allocated past its end (its capacity), so a
// parser that reads ahead of the text (simdjson) can read it where it is, not a copy.
inline constexpr std::size_t kTextFileRoomAfter = 64;

// The whole content of the regular file at `path`; InputError naming it otherwise.
// `what` names the file's role in the message ("workload file", "fault file").
std::string read_text_file(const std::string& path, const std::string& what = "file");

// The bytes a string has allocated past its end, which may be read (not written).
inline std::size_t room_after(const std::string& text) { return text.capacity() - text.size(); }

}  // namespace hetsched
