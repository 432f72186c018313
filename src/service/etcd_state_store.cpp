// EtcdStateStore: StateStore on etcd's key space (see the header for the scheme).
// next_sequence follows etcd's documented optimistic concurrency pattern: read the
// counter, then a transaction that writes value+1 only if the counter's
// mod_revision is still the one read (or, for a new counter, its create_revision is
// 0); on a lost race, read again.
#include "hetsched/service/etcd_state_store.hpp"

#include <fmt/format.h>

#include <charconv>

namespace hetsched {
namespace {

// etcd's failures as the StateStore reports them (nothing of the call was made
// durable: a transaction is all or none, and a failed request changed nothing).
template <typename Call>
auto as_store_error(Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const EtcdError& error) {
    throw StateStoreError(error.what());
  }
}

}  // namespace

EtcdStateStore::EtcdStateStore(std::shared_ptr<EtcdClient> client, std::string key_prefix)
    : client_(std::move(client)), key_prefix_(std::move(key_prefix)) {}

void EtcdStateStore::put(std::span<const StoredRecord> records) {
  if (records.empty()) return;
  std::vector<EtcdOperation> operations;
  operations.reserve(records.size());
  for (const auto& record : records) {
    operations.push_back(
        EtcdOperation{EtcdOperation::Kind::put, full_key(record.key), record.value});
  }
  as_store_error([&] { return client_->txn({}, operations); });
}

std::optional<std::string> EtcdStateStore::get(std::string_view key) {
  auto found = as_store_error([&] { return client_->get(full_key(key)); });
  if (!found) return std::nullopt;
  return std::move(found->value);
}

std::vector<StoredRecord> EtcdStateStore::list(std::string_view prefix) {
  const std::string start = full_key(prefix);
  std::vector<StoredRecord> records;
  auto values =
      as_store_error([&] { return client_->range(start, EtcdClient::prefix_end(start)); });
  for (auto& kv : values) {
    records.push_back(StoredRecord{kv.key.substr(key_prefix_.size()), std::move(kv.value)});
  }
  return records;
}

void EtcdStateStore::erase(std::string_view key) {
  as_store_error([&] { return client_->delete_range(full_key(key)); });
}

std::uint64_t EtcdStateStore::next_sequence(std::string_view counter) {
  return as_store_error([&] { return next_sequence_in_etcd(counter); });
}

std::uint64_t EtcdStateStore::next_sequence_in_etcd(std::string_view counter) {
  const std::string key = full_key("sequences/" + std::string(counter));
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const auto current = client_->get(key);
    std::uint64_t value = 0;
    EtcdCompare unchanged{key};
    if (current) {
      const auto& text = current->value;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size()) {
        throw EtcdError(fmt::format("etcd: counter {} holds '{}', not a number", key, text));
      }
      unchanged.target = EtcdCompare::Target::mod_revision;
      unchanged.number = current->mod_revision;
    } else {
      unchanged.target = EtcdCompare::Target::create_revision;
      unchanged.number = 0;
    }
    const std::uint64_t next = value + 1;
    const auto result = client_->txn(
        {unchanged}, {EtcdOperation{EtcdOperation::Kind::put, key, std::to_string(next)}});
    if (result.succeeded) return next;
  }
  throw EtcdError(fmt::format("etcd: counter {} kept changing under 1000 attempts", key));
}

}  // namespace hetsched
