// EtcdClient: etcd v3 requests as JSON POSTs to /v3/... on one member, through
// libcurl. On a connection failure, a timeout or a 503 (the member has no leader)
// the request goes to the next endpoint; the endpoint that answered is tried first
// next time. Responses follow grpc-gateway's proto3 JSON mapping: int64 as strings,
// bytes as base64, default values (false, 0, empty) omitted.
#include "hetsched/service/etcd_client.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

namespace hetsched {
namespace {

using nlohmann::json;

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned value = (static_cast<unsigned char>(data[i]) << 16) |
                           (static_cast<unsigned char>(data[i + 1]) << 8) |
                           static_cast<unsigned char>(data[i + 2]);
    out += kBase64Alphabet[(value >> 18) & 63];
    out += kBase64Alphabet[(value >> 12) & 63];
    out += kBase64Alphabet[(value >> 6) & 63];
    out += kBase64Alphabet[value & 63];
  }
  if (const std::size_t rest = data.size() - i; rest > 0) {
    unsigned value = static_cast<unsigned char>(data[i]) << 16;
    if (rest == 2) value |= static_cast<unsigned char>(data[i + 1]) << 8;
    out += kBase64Alphabet[(value >> 18) & 63];
    out += kBase64Alphabet[(value >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(value >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i) {
      t[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int>(i);
    }
    t['-'] = 62;  // the URL-safe alphabet, should a gateway use it
    t['_'] = 63;
    return t;
  }();
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const int value = table[static_cast<unsigned char>(c)];
    if (value < 0) throw EtcdError("etcd: a key or value is not valid base64");
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

std::int64_t json_int64(const json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end()) return 0;  // proto3 JSON leaves zero out
  if (it->is_string()) return std::stoll(it->get<std::string>());
  if (it->is_number()) return it->get<std::int64_t>();
  return 0;
}

EtcdKeyValue key_value_from_json(const json& kv) {
  EtcdKeyValue result;
  result.key = base64_decode(kv.value("key", ""));
  result.value = base64_decode(kv.value("value", ""));
  result.create_revision = json_int64(kv, "create_revision");
  result.mod_revision = json_int64(kv, "mod_revision");
  result.version = json_int64(kv, "version");
  result.lease = json_int64(kv, "lease");
  return result;
}

std::vector<EtcdKeyValue> key_values_from_json(const json& response) {
  std::vector<EtcdKeyValue> result;
  if (const auto it = response.find("kvs"); it != response.end() && it->is_array()) {
    for (const json& kv : *it) result.push_back(key_value_from_json(kv));
  }
  return result;
}

json operation_to_json(const EtcdOperation& operation) {
  switch (operation.kind) {
    case EtcdOperation::Kind::put: {
      json put = {{"key", base64_encode(operation.key)}, {"value", base64_encode(operation.value)}};
      if (operation.lease != 0) put["lease"] = std::to_string(operation.lease);
      return {{"request_put", put}};
    }
    case EtcdOperation::Kind::range: {
      json range = {{"key", base64_encode(operation.key)}};
      if (!operation.range_end.empty()) range["range_end"] = base64_encode(operation.range_end);
      return {{"request_range", range}};
    }
    case EtcdOperation::Kind::delete_range: {
      json range = {{"key", base64_encode(operation.key)}};
      if (!operation.range_end.empty()) range["range_end"] = base64_encode(operation.range_end);
      return {{"request_delete_range", range}};
    }
  }
  return {};
}

json compare_to_json(const EtcdCompare& compare) {
  static constexpr std::array<const char*, 4> results = {"EQUAL", "NOT_EQUAL", "GREATER", "LESS"};
  json out = {{"key", base64_encode(compare.key)},
              {"result", results[static_cast<std::size_t>(compare.result)]}};
  switch (compare.target) {
    case EtcdCompare::Target::create_revision:
      out["target"] = "CREATE";
      out["create_revision"] = std::to_string(compare.number);
      break;
    case EtcdCompare::Target::mod_revision:
      out["target"] = "MOD";
      out["mod_revision"] = std::to_string(compare.number);
      break;
    case EtcdCompare::Target::version:
      out["target"] = "VERSION";
      out["version"] = std::to_string(compare.number);
      break;
    case EtcdCompare::Target::value:
      out["target"] = "VALUE";
      out["value"] = base64_encode(compare.value);
      break;
  }
  return out;
}

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* sink) {
  static_cast<std::string*>(sink)->append(data, size * count);
  return size * count;
}

json parse_response(const std::string& body, std::string_view path) {
  json document = json::parse(body, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    throw EtcdError(fmt::format("etcd: {} answered with something that is not JSON", path));
  }
  return document;
}

}  // namespace

struct EtcdClient::Connection {
  CURL* handle = nullptr;
  curl_slist* headers = nullptr;
  Connection() {
    static std::once_flag global_init;
    std::call_once(global_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    handle = curl_easy_init();
    headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (!handle || !headers) throw EtcdError("etcd: libcurl could not start");
  }
  ~Connection() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(handle);
  }
};

EtcdClient::EtcdClient(std::vector<std::string> endpoints, EtcdClientOptions options)
    : options_(options), connection_(std::make_unique<Connection>()) {
  for (auto& endpoint : endpoints) {
    if (endpoint.rfind("http://", 0) != 0 && endpoint.rfind("https://", 0) != 0) {
      endpoint = "http://" + endpoint;
    }
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    endpoints_.push_back(std::move(endpoint));
  }
  if (endpoints_.empty()) throw EtcdError("etcd: no endpoint given");
}

EtcdClient::~EtcdClient() = default;

std::vector<std::string> EtcdClient::parse_endpoints(std::string_view text) {
  if (text.rfind("etcd://", 0) == 0) text.remove_prefix(7);
  std::vector<std::string> endpoints;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string_view part = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const auto colon = part.rfind(':');
    if (part.empty() || colon == std::string_view::npos || colon == 0 || colon + 1 == part.size() ||
        part.find_first_not_of("0123456789", colon + 1) != std::string_view::npos) {
      throw EtcdError(fmt::format("etcd: endpoint '{}' is not host:port", part));
    }
    endpoints.emplace_back(part);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return endpoints;
}

std::string EtcdClient::current_endpoint() const {
  std::lock_guard lock(mutex_);
  return endpoints_[current_];
}

std::string EtcdClient::post(std::string_view path, const std::string& body) {
  std::lock_guard lock(mutex_);
  std::string failures;
  for (std::size_t attempt = 0; attempt < endpoints_.size(); ++attempt) {
    const std::size_t index = (current_ + attempt) % endpoints_.size();
    const std::string url = endpoints_[index] + std::string(path);
    CURL* curl = connection_->handle;
    std::string response;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, connection_->headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
    const CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
      failures += fmt::format("{}{}: {}", failures.empty() ? "" : "; ", endpoints_[index],
                              curl_easy_strerror(code));
      continue;  // unreachable or too slow: the next member
    }
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (status == 200) {
      current_ = index;
      return response;
    }
    std::string message = response;
    const json error = json::parse(response, nullptr, false);
    if (error.is_object()) {
      message = error.value("message", error.value("error", response));
    }
    if (status == 503 || status == 504) {
      failures += fmt::format("{}{}: HTTP {} {}", failures.empty() ? "" : "; ", endpoints_[index],
                              status, message);
      continue;  // this member has no leader now: another may
    }
    throw EtcdError(
        fmt::format("etcd: {} {}: HTTP {}: {}", endpoints_[index], path, status, message));
  }
  throw EtcdError(fmt::format("etcd: no member answered {} ({})", path, failures));
}

void EtcdClient::put(std::string_view key, std::string_view value, std::int64_t lease) {
  json request = {{"key", base64_encode(key)}, {"value", base64_encode(value)}};
  if (lease != 0) request["lease"] = std::to_string(lease);
  post("/v3/kv/put", request.dump());
}

std::optional<EtcdKeyValue> EtcdClient::get(std::string_view key) {
  auto values = range(key, {});
  if (values.empty()) return std::nullopt;
  return std::move(values.front());
}

std::vector<EtcdKeyValue> EtcdClient::range(std::string_view key, std::string_view range_end) {
  json request = {{"key", base64_encode(key)}};
  if (!range_end.empty()) request["range_end"] = base64_encode(range_end);
  return key_values_from_json(parse_response(post("/v3/kv/range", request.dump()), "/v3/kv/range"));
}

std::int64_t EtcdClient::delete_range(std::string_view key, std::string_view range_end) {
  json request = {{"key", base64_encode(key)}};
  if (!range_end.empty()) request["range_end"] = base64_encode(range_end);
  return json_int64(
      parse_response(post("/v3/kv/deleterange", request.dump()), "/v3/kv/deleterange"), "deleted");
}

EtcdTxnResult EtcdClient::txn(const std::vector<EtcdCompare>& compares,
                              const std::vector<EtcdOperation>& success,
                              const std::vector<EtcdOperation>& failure) {
  json request = {
      {"compare", json::array()}, {"success", json::array()}, {"failure", json::array()}};
  for (const auto& compare : compares) request["compare"].push_back(compare_to_json(compare));
  for (const auto& operation : success) request["success"].push_back(operation_to_json(operation));
  for (const auto& operation : failure) request["failure"].push_back(operation_to_json(operation));
  const json response = parse_response(post("/v3/kv/txn", request.dump()), "/v3/kv/txn");
  EtcdTxnResult result;
  result.succeeded = response.value("succeeded", false);
  if (const auto it = response.find("responses"); it != response.end() && it->is_array()) {
    for (const json& entry : *it) {
      if (const auto range = entry.find("response_range"); range != entry.end()) {
        result.ranges.push_back(key_values_from_json(*range));
      }
    }
  }
  return result;
}

std::int64_t EtcdClient::lease_grant(std::int64_t ttl_seconds) {
  const json request = {{"TTL", std::to_string(ttl_seconds)}};
  const json response = parse_response(post("/v3/lease/grant", request.dump()), "/v3/lease/grant");
  const std::int64_t id = json_int64(response, "ID");
  if (id == 0)
    throw EtcdError("etcd: lease grant returned no lease: " + response.value("error", ""));
  return id;
}

std::int64_t EtcdClient::lease_keepalive(std::int64_t lease_id) {
  const json request = {{"ID", std::to_string(lease_id)}};
  const json response =
      parse_response(post("/v3/lease/keepalive", request.dump()), "/v3/lease/keepalive");
  // A streaming call: the gateway wraps the one answer in "result".
  const auto result = response.find("result");
  if (result == response.end()) return 0;
  return json_int64(*result, "TTL");  // absent: the lease has expired
}

void EtcdClient::lease_revoke(std::int64_t lease_id) {
  const json request = {{"ID", std::to_string(lease_id)}};
  try {
    post("/v3/lease/revoke", request.dump());
  } catch (const EtcdError& error) {
    // Revoking a lease that already expired is not a failure.
    if (std::string_view(error.what()).find("lease not found") == std::string_view::npos) throw;
  }
}

std::string EtcdClient::prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

}  // namespace hetsched
