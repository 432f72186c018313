// Text for HTML and XML (SVG) documents: the five characters that markup reads specially
// (& < > " ') written as entities, so a name from a workload is shown, never interpreted,
// in element content and in quoted attribute values alike.
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

std::string escape_markup(std::string_view text);

}  // namespace hetsched
