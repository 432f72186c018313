#include "hetsched/core/text_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hetsched/core/huge_page_allocator.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched {

std::string read_text_file(const std::string& path, const std::string& what) {
  const SourcePosition where{path, 0, 0};
  if (path.empty()) throw InputError(fmt::format("expected the path of a {}, got ''", what));
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) throw InputError(where, fmt::format("cannot read the {}: {}", what, error.message()));
  if (std::filesystem::is_directory(status))
    throw InputError(where, fmt::format("cannot read the {}: it is a directory", what));
  if (!std::filesystem::is_regular_file(status))
    throw InputError(where, fmt::format("cannot read the {}: not a regular file", what));
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw InputError(where, fmt::format("cannot read the {}: {}", what, error.message()));
  if (size > kMaxInputFileBytes)
    throw InputError(where, fmt::format("the {} is too large ({} bytes; the limit is {} bytes)",
                                        what, size, kMaxInputFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(where, fmt::format("cannot read the {}: cannot open it", what));
  std::string content;
  // A big file's buffer is fresh memory: huge pages make its first touch one fault per
  // 2 MiB instead of one per 4 KiB.
  content.reserve(static_cast<std::size_t>(size) + kTextFileRoomAfter);
  advise_huge_pages(content.data(), content.capacity());
  content.resize(static_cast<std::size_t>(size));
  in.read(content.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::uintmax_t>(in.gcount()) != size)
    throw InputError(where, fmt::format("cannot read the {}: read error", what));
  return content;
}

}  // namespace hetsched
