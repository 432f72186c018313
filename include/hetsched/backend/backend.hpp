// Backend: a body that carries out the brain's decisions — the simulator, local
// workers, or a real cluster manager. It queues each launched task on its device
// in planned order, starts it when its inputs have arrived and reports back to the
// SchedulingLoop what happened (started, finished, with measured times).
#pragma once

#include <string_view>

#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual void launch(const Assignment& assignment) = 0;
};

}  // namespace hetsched
