// Progress: a one-line progress display on stderr for work that takes more than a
// moment. It draws only when stderr is a terminal and the user did not ask for
// quiet, and never more than a few times a second.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace hetsched {

class Progress {
 public:
  Progress(std::string label, bool quiet);
  ~Progress();
  void update(std::size_t done, std::size_t total);
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace hetsched
