#include "hetsched/io/input_progress.hpp"

namespace hetsched {
namespace {

thread_local InputProgressScope* innermost_scope = nullptr;

}  // namespace

InputProgressScope::InputProgressScope(Callback callback)
    : callback_(std::move(callback)), outer_(innermost_scope) {
  innermost_scope = this;
}

InputProgressScope::~InputProgressScope() { innermost_scope = outer_; }

void InputProgressScope::report(std::size_t done_bytes, std::size_t total_bytes) {
  if (innermost_scope != nullptr && innermost_scope->callback_)
    innermost_scope->callback_(done_bytes, total_bytes);
}

}  // namespace hetsched
