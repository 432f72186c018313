// Safe reads of Kubernetes JSON objects: every accessor checks the type first and
// names the field path in the InputError it throws, so no malformed request can
// reach a nlohmann::json exception or undefined behaviour.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/service/kube/kube_quantity.hpp"

namespace hetsched::kube_json {

inline std::string describe_type(const nlohmann::json& value) { return value.type_name(); }

// The member `key` of `object` when object is an object holding it (and it is not
// null), else nullptr.
inline const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

inline const nlohmann::json& require_object(const nlohmann::json& value, const std::string& path) {
  if (!value.is_object())
    throw InputError(path + ": expected an object, found " + describe_type(value));
  return value;
}

inline std::string require_string(const nlohmann::json& object, std::string_view key,
                                  const std::string& path) {
  const nlohmann::json* value = member(object, key);
  const std::string field = path + "." + std::string(key);
  if (value == nullptr) throw InputError(field + ": missing (expected a string)");
  if (!value->is_string())
    throw InputError(field + ": expected a string, found " + describe_type(*value));
  return value->get<std::string>();
}

inline std::string optional_string(const nlohmann::json& object, std::string_view key,
                                   const std::string& path) {
  const nlohmann::json* value = member(object, key);
  if (value == nullptr) return {};
  if (!value->is_string())
    throw InputError(path + "." + std::string(key) + ": expected a string, found " +
                     describe_type(*value));
  return value->get<std::string>();
}

// A resource.Quantity as JSON: normally a string ("500m"), a bare number also accepted.
inline double quantity(const nlohmann::json& value, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  if (!value.is_string())
    throw InputError(path + ": expected a quantity string, found " + describe_type(value));
  return require_kube_quantity(value.get_ref<const std::string&>(), path);
}

}  // namespace hetsched::kube_json
