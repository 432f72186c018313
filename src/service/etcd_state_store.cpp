// EtcdStateStore: StateStore on etcd's key space (see the header for the scheme).
// reserve_sequence follows etcd's documented optimistic concurrency pattern: read the
// counter, then a transaction that writes value+count only if the counter's
// mod_revision is still the one read (or, for a new counter, its create_revision is
// 0); on a lost race, read again. Large values are written in chunks staged before the
// one key that names them (see the header).
#include "etcd_state_store.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// A chunked value's key holds this marker, its generation, its chunk count and its size.
// The marker starts with a NUL byte, which no stored text (JSON, or UTF-8 checked at the
// service's boundary) holds.
constexpr std::string_view kChunkedMarker{"\0hetsched-chunked ", 18};

// What one operation costs of a request's bytes: its key, value and range end, and a
// little for the framing.
std::size_t request_bytes(const EtcdOperation& operation) {
  return operation.key.size() + operation.value.size() + operation.range_end.size() + 16;
}

}  // namespace

EtcdStateStore::EtcdStateStore(std::shared_ptr<EtcdClient> client, std::string key_prefix,
                               EtcdStoreLimits limits)
    : client_(std::move(client)), key_prefix_(std::move(key_prefix)), limits_(limits) {
  if (limits_.max_txn_ops < 2 || limits_.max_request_bytes < 4096)
    throw StateStoreError("etcd: limits below 2 operations or 4 KiB per request");
}

std::size_t EtcdStateStore::chunk_bytes() const { return limits_.max_request_bytes / 2; }

std::string EtcdStateStore::chunk_prefix(std::string_view key) const {
  // Ended by a NUL byte, which no record key holds: the chunks of "a" and of "a/b" lie in
  // ranges apart, so clearing one never touches the other.
  return full_key("~chunks/" + std::string(key)) + std::string(1, '\0');
}

void EtcdStateStore::send_in_batches(const std::vector<EtcdOperation>& operations) {
  // A chunk's worth (half the request) plus a margin for the keys beside it; the rest of
  // the request is left to its own framing (the gateway's base64 and JSON).
  const std::size_t budget = chunk_bytes() + 64 * 1024;
  std::vector<EtcdOperation> batch;
  std::size_t bytes = 0;
  for (const EtcdOperation& operation : operations) {
    const std::size_t cost = request_bytes(operation);
    if (!batch.empty() && (batch.size() == limits_.max_txn_ops || bytes + cost > budget)) {
      client_->txn({}, batch);
      batch.clear();
      bytes = 0;
    }
    batch.push_back(operation);
    bytes += cost;
  }
  if (!batch.empty()) client_->txn({}, batch);
}

void EtcdStateStore::put(std::span<const StoredRecord> records) {
  if (records.empty()) return;
  as_store_error([&] {
    std::vector<EtcdOperation> staged;  // chunks of the large values: written first
    std::vector<EtcdOperation> flips;   // the records' own keys: written last
    std::vector<EtcdOperation> cleanup;
    for (const StoredRecord& record : records) {
      const std::string key = full_key(record.key);
      const std::string chunks = chunk_prefix(record.key);
      if (record.value.size() + key.size() <= chunk_bytes()) {
        flips.push_back({EtcdOperation::Kind::put, key, record.value});
        // A value chunked before is no longer: its chunks go (an empty range if none).
        cleanup.push_back({.kind = EtcdOperation::Kind::delete_range,
                           .key = chunks,
                           .range_end = EtcdClient::prefix_end(chunks)});
        continue;
      }
      // A new generation of chunks, staged under a key no reader follows yet.
      const std::uint64_t generation = next_sequence_in_etcd("chunks", 1);
      const std::string stage = fmt::format("{}{:020}/", chunks, generation);
      const std::size_t size = chunk_bytes() - stage.size() - 16;
      std::size_t count = 0;
      for (std::size_t at = 0; at < record.value.size(); at += size, ++count)
        staged.push_back({EtcdOperation::Kind::put, fmt::format("{}{:08}", stage, count),
                          record.value.substr(at, size)});
      flips.push_back(
          {EtcdOperation::Kind::put, key,
           fmt::format("{}{} {} {}", kChunkedMarker, generation, count, record.value.size())});
      // After the flip, the older generations (and any a crash left staged) go.
      cleanup.push_back({.kind = EtcdOperation::Kind::delete_range,
                         .key = chunks,
                         .range_end = fmt::format("{}{:020}/", chunks, generation)});
    }
    // In order: the chunks, then the keys that name them, then the cleanup. When they fit
    // one request that is one transaction (all or none); otherwise each record is still
    // all or none, its key flipping to a complete value.
    std::vector<EtcdOperation> all = std::move(staged);
    all.insert(all.end(), flips.begin(), flips.end());
    all.insert(all.end(), cleanup.begin(), cleanup.end());
    send_in_batches(all);
  });
}

std::string EtcdStateStore::whole_value(std::string_view key, std::string value) {
  if (!value.starts_with(kChunkedMarker)) return value;
  std::uint64_t generation = 0, count = 0, size = 0;
  const char* at = value.data() + kChunkedMarker.size();
  const char* end = value.data() + value.size();
  for (std::uint64_t* number : {&generation, &count, &size}) {
    const auto parsed = std::from_chars(at, end, *number);
    if (parsed.ec != std::errc()) throw EtcdError(fmt::format("etcd: bad chunk marker at {}", key));
    at = parsed.ptr + (parsed.ptr < end ? 1 : 0);
  }
  const std::string stage = fmt::format("{}{:020}/", chunk_prefix(key), generation);
  std::string whole;
  whole.reserve(size);
  const std::vector<EtcdKeyValue> chunks = client_->range(stage, EtcdClient::prefix_end(stage));
  for (const EtcdKeyValue& chunk : chunks) whole += chunk.value;
  if (chunks.size() != count || whole.size() != size)
    throw EtcdError(fmt::format("etcd: {} names {} chunks ({} bytes); {} found ({} bytes)", key,
                                count, size, chunks.size(), whole.size()));
  return whole;
}

std::optional<std::string> EtcdStateStore::get(std::string_view key) {
  return as_store_error([&]() -> std::optional<std::string> {
    auto found = client_->get(full_key(key));
    if (!found) return std::nullopt;
    return whole_value(key, std::move(found->value));
  });
}

std::vector<StoredRecord> EtcdStateStore::list(std::string_view prefix) {
  return as_store_error([&] {
    const std::string start = full_key(prefix);
    const std::string chunks = full_key("~chunks/");
    std::vector<StoredRecord> records;
    for (auto& kv : client_->range(start, EtcdClient::prefix_end(start))) {
      if (kv.key.starts_with(chunks)) continue;  // parts of values, not records
      std::string key = kv.key.substr(key_prefix_.size());
      std::string value = whole_value(key, std::move(kv.value));
      records.push_back(StoredRecord{std::move(key), std::move(value)});
    }
    return records;
  });
}

void EtcdStateStore::erase(std::string_view key) {
  as_store_error([&] {
    const std::string chunks = chunk_prefix(key);
    return client_->txn({}, {{.kind = EtcdOperation::Kind::delete_range, .key = full_key(key)},
                             {.kind = EtcdOperation::Kind::delete_range,
                              .key = chunks,
                              .range_end = EtcdClient::prefix_end(chunks)}});
  });
}

std::uint64_t EtcdStateStore::reserve_sequence(std::string_view counter, std::uint64_t count) {
  if (count == 0) throw StateStoreError("etcd: a sequence reservation of no values");
  return as_store_error([&] { return next_sequence_in_etcd(counter, count); });
}

std::uint64_t EtcdStateStore::next_sequence_in_etcd(std::string_view counter, std::uint64_t count) {
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
    const std::uint64_t last = value + count;
    const auto result = client_->txn(
        {unchanged}, {EtcdOperation{EtcdOperation::Kind::put, key, std::to_string(last)}});
    if (result.succeeded) return value + 1;
  }
  throw EtcdError(fmt::format("etcd: counter {} kept changing under 1000 attempts", key));
}

}  // namespace hetsched
