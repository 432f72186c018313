// The service's log: one line on stderr for each event an operator should see (a record
// that cannot be read, a scheduling step failing and recovering, a failed request's
// detail), written through spdlog as "hetsched serve <level>: <message>". `hetsched serve
// --log-level` sets which levels are written.
#pragma once

#include <string_view>

namespace spdlog {
class logger;
}

namespace hetsched {

// The one logger of the service (created on first use; safe from any thread).
spdlog::logger& service_log();
// Sets the lowest level written: trace, debug, info, warn, error, critical or off. Throws
// InputError naming the valid levels when `level` is none of them.
void set_service_log_level(std::string_view level);

}  // namespace hetsched
