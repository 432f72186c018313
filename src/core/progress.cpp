#include "hetsched/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace hetsched {

Progress::Progress(std::string label, bool quiet)
    : label_(std::move(label)), enabled_(!quiet && isatty(STDERR_FILENO)) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200) && done < total) return;
  last_draw_ = now;
  drawn_ = true;
  const double percent =
      total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100;
  std::fprintf(stderr, "\r\033[K%s: %zu/%zu (%.0f %%)", label_.c_str(), done, total, percent);
  std::fflush(stderr);
}

}  // namespace hetsched
