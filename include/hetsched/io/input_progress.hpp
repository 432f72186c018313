// Progress of reading big input files. While an InputProgressScope lives, the YAML and JSON
// readers on its thread report to it how many bytes of the document they have parsed, every
// megabyte or so; the CLI draws that as a progress line on a terminal. Without a scope,
// nothing is reported.
#pragma once

#include <cstddef>
#include <functional>

namespace hetsched {

class InputProgressScope {
 public:
  using Callback = std::function<void(std::size_t done_bytes, std::size_t total_bytes)>;

  explicit InputProgressScope(Callback callback);
  ~InputProgressScope();
  InputProgressScope(const InputProgressScope&) = delete;
  InputProgressScope& operator=(const InputProgressScope&) = delete;

  // Called by the readers: passes the figures to the innermost scope of this thread.
  static void report(std::size_t done_bytes, std::size_t total_bytes);

 private:
  Callback callback_;
  InputProgressScope* outer_;
};

}  // namespace hetsched
