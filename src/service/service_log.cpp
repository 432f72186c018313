#include "hetsched/service/service_log.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

spdlog::logger& service_log() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto made = std::make_shared<spdlog::logger>("hetsched serve",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
    made->set_pattern("%n %l: %v");
    made->set_level(spdlog::level::info);
    made->flush_on(spdlog::level::info);
    return made;
  }();
  return *logger;
}

void set_service_log_level(std::string_view level) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(std::string(level));
  // from_str answers `off` for a name it does not know.
  if (parsed == spdlog::level::off && level != "off")
    throw InputError(fmt::format(
        "unknown log level '{}' (expected trace, debug, info, warn, error, critical or off)",
        level));
  service_log().set_level(parsed);
}

}  // namespace hetsched
