// Kubernetes resource quantities ("500m", "2", "1.5Gi", "128974848", "129e6", "4k"),
// as the API machinery's resource.Quantity reads them: a signed decimal number and
// one suffix — binary SI (Ki Mi Gi Ti Pi Ei, powers of 1024), decimal SI (n u m "" k
// M G T P E, powers of 1000) or a decimal exponent ("e3", "E-2").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hetsched {

// The quantity's value in base units (cores for cpu, bytes for memory, devices for
// extended resources); nullopt when the text is not a quantity.
std::optional<double> parse_kube_quantity(std::string_view text);

// The same, or an InputError "<what>: '<text>' is not a Kubernetes quantity (...)".
double require_kube_quantity(std::string_view text, std::string_view what);

}  // namespace hetsched
