// Expected<T> and Status: what an operation that may fail returns — its value (nothing, for
// Status) or why it failed, one line for the user. They are tl::expected (Debian
// libexpected-dev), C++23's std::expected for C++20: a Status converts to true on success,
// `status.error()` is the reason, and `return failure("why")` fails.
#pragma once

#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace hetsched {

template <typename T>
using Expected = tl::expected<T, std::string>;
using Status = Expected<void>;

inline tl::unexpected<std::string> failure(std::string why) {
  return tl::unexpected<std::string>(std::move(why));
}

// A Status as text: empty on success, else why it failed (for messages and tests).
inline std::string error_text(const Status& status) {
  return status ? std::string() : status.error();
}

}  // namespace hetsched
