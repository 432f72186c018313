// EtcdClient: a small client for etcd's v3 API through its JSON gateway (the
// grpc-gateway every etcd 3.4 member serves on its client port), over libcurl.
// Keys and values travel base64-encoded; 64-bit integers come back as strings, and
// false or zero fields are left out (a failed transaction has no "succeeded").
// It knows several endpoints and moves to the next one when a member cannot be
// reached, times out or answers "unavailable" (no leader) — so it keeps working
// while one member of three is down. Every request has a bounded timeout.
// Thread-safe: one request at a time per client.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

class EtcdError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EtcdKeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;
};

// One comparison of a transaction: the key's target field compared with a value.
struct EtcdCompare {
  enum class Target { create_revision, mod_revision, version, value };
  enum class Result { equal, not_equal, greater, less };
  std::string key;
  Target target = Target::create_revision;
  Result result = Result::equal;
  std::int64_t number = 0;  // for the revision and version targets
  std::string value;        // for the value target
};

// One operation of a transaction.
struct EtcdOperation {
  enum class Kind { put, range, delete_range };
  Kind kind = Kind::put;
  std::string key;
  std::string value;       // put
  std::int64_t lease = 0;  // put
  std::string range_end;   // range / delete_range; empty: the key alone
};

struct EtcdTxnResult {
  bool succeeded = false;
  // The key-values read by the range operations of the branch taken, in order.
  std::vector<std::vector<EtcdKeyValue>> ranges;
};

struct EtcdClientOptions {
  std::chrono::milliseconds connect_timeout{500};
  std::chrono::milliseconds request_timeout{2000};
};

class EtcdClient {
 public:
  // endpoints: "host:port" or "http://host:port".
  explicit EtcdClient(std::vector<std::string> endpoints, EtcdClientOptions options = {});
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // "etcd://h1:p1,h2:p2" or "h1:p1,h2:p2" → endpoints; InputError-free: throws
  // EtcdError naming the bad part.
  static std::vector<std::string> parse_endpoints(std::string_view text);

  void put(std::string_view key, std::string_view value, std::int64_t lease = 0);
  std::optional<EtcdKeyValue> get(std::string_view key);
  // Keys in [key, range_end), in key order.
  std::vector<EtcdKeyValue> range(std::string_view key, std::string_view range_end);
  // Returns how many keys were deleted.
  std::int64_t delete_range(std::string_view key, std::string_view range_end = {});
  EtcdTxnResult txn(const std::vector<EtcdCompare>& compares,
                    const std::vector<EtcdOperation>& success,
                    const std::vector<EtcdOperation>& failure = {});

  // Leases: grant returns the id; keepalive returns the TTL left (0: the lease is gone).
  std::int64_t lease_grant(std::int64_t ttl_seconds);
  std::int64_t lease_keepalive(std::int64_t lease_id);
  void lease_revoke(std::int64_t lease_id);

  // The smallest key greater than every key that starts with prefix ("\0" for "").
  static std::string prefix_end(std::string_view prefix);

  // The endpoint the last request went to (for logs and tests).
  std::string current_endpoint() const;

 private:
  struct Connection;
  std::string post(std::string_view path, const std::string& body);

  std::vector<std::string> endpoints_;
  EtcdClientOptions options_;
  mutable std::mutex mutex_;
  std::size_t current_ = 0;
  std::unique_ptr<Connection> connection_;
};

}  // namespace hetsched
