#include "hetsched/learn/policy_network.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hetsched {

namespace {
constexpr std::string_view kFormat = "hetsched-learned-policy";
constexpr int kVersion = 2;
}  // namespace

PolicyNetwork::PolicyNetwork(std::vector<DenseLayer> layers, GraphEncoder encoder)
    : encoder_(std::move(encoder)), layers_(std::move(layers)), columns_(layers_.size()) {
  std::size_t widest = 0;
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    widest = std::max<std::size_t>(widest, layers_[k].outputs);
    transpose(k);
  }
  a_.resize(widest);
  b_.resize(widest);
}

void PolicyNetwork::transpose(std::size_t k) {
  const DenseLayer& l = layers_[k];
  columns_[k].resize(l.weights.size());
  for (std::uint32_t o = 0; o < l.outputs; ++o)
    for (std::uint32_t i = 0; i < l.inputs; ++i)
      columns_[k][std::size_t(i) * l.outputs + o] = l.weights[std::size_t(o) * l.inputs + i];
}

void PolicyNetwork::assign_layer(std::size_t k, std::span<const float> weights,
                                 std::span<const float> bias) {
  layers_.at(k).assign(weights, bias);
  transpose(k);
}

PolicyNetwork PolicyNetwork::initial(std::size_t inputs, std::span<const std::uint32_t> hidden,
                                     Rng& rng, GraphEncoder encoder) {
  std::vector<DenseLayer> layers;
  auto width = static_cast<std::uint32_t>(inputs + encoder.width());
  auto add = [&](std::uint32_t outputs) {
    layers.push_back(DenseLayer::initial(width, outputs, rng));
    width = outputs;
  };
  for (std::uint32_t h : hidden) add(h);
  add(1);
  return PolicyNetwork(std::move(layers), std::move(encoder));
}

void PolicyNetwork::embedding_sums(std::span<const float> embedding, std::span<float> sums) const {
  const DenseLayer& l = layers_.front();
  const std::size_t first = input_count();
  for (std::uint32_t o = 0; o < l.outputs; ++o) {
    float sum = l.bias[o];
    for (std::size_t j = 0; j < embedding.size(); ++j)
      sum += l.weights[std::size_t(o) * l.inputs + first + j] * embedding[j];
    sums[o] = sum;
  }
}

namespace {

// Four floats that GCC and Clang add and multiply as one SIMD register.
using Lanes = float __attribute__((vector_size(16)));
constexpr std::uint32_t kLaneWidth = 4;

// Outputs [first, first + 4·N) of a layer: the sums stay in N registers while the inputs go
// by, each output's in the order bias + w₀x₀ + w₁x₁ + …
template <std::uint32_t N>
void dense_block(const float* columns, const float* bias, std::uint32_t inputs,
                 std::uint32_t outputs, std::uint32_t first, const float* in, bool relu,
                 float* out) {
  std::array<Lanes, N> sum;
  std::memcpy(sum.data(), bias + first, sizeof sum);
  const float* column = columns + first;
  for (std::uint32_t i = 0; i < inputs; ++i, column += outputs) {
    const Lanes x = Lanes{} + in[i];
    for (std::uint32_t n = 0; n < N; ++n) {
      Lanes w;
      std::memcpy(&w, column + n * kLaneWidth, sizeof w);
      sum[n] += w * x;
    }
  }
  std::memcpy(out + first, sum.data(), sizeof sum);
  if (relu)
    for (std::uint32_t o = first; o < first + N * kLaneWidth; ++o) out[o] = std::max(out[o], 0.0f);
}

// A layer of one output (the score): a dot product, four inputs at a time.
float dense_single(const float* weights, float bias, std::uint32_t inputs, const float* in) {
  Lanes sum{};
  std::uint32_t i = 0;
  for (; i + kLaneWidth <= inputs; i += kLaneWidth) {
    Lanes w, x;
    std::memcpy(&w, weights + i, sizeof w);
    std::memcpy(&x, in + i, sizeof x);
    sum += w * x;
  }
  float total = bias + ((sum[0] + sum[1]) + (sum[2] + sum[3]));
  for (; i < inputs; ++i) total += weights[i] * in[i];
  return total;
}

}  // namespace

float PolicyNetwork::score(std::span<const float> features, std::span<const float> sums) const {
  const float* in = features.data();
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    const DenseLayer& l = layers_[k];
    const bool relu = k + 1 < layers_.size();
    float* out = (k % 2 == 0) ? a_.data() : b_.data();
    const float* columns = columns_[k].data();
    // The first layer starts from the sums its task's embedding gave and reads the features
    // alone (its first input_count() columns); the others from their biases.
    const float* bias = k == 0 ? sums.data() : l.bias.data();
    const auto inputs = static_cast<std::uint32_t>(k == 0 ? input_count() : l.inputs);
    if (l.outputs == 1) {
      const float sum = dense_single(columns, bias[0], inputs, in);
      out[0] = relu ? std::max(sum, 0.0f) : sum;
      in = out;
      continue;
    }
    std::uint32_t first = 0;
    for (; first + 4 * kLaneWidth <= l.outputs; first += 4 * kLaneWidth)
      dense_block<4>(columns, bias, inputs, l.outputs, first, in, relu, out);
    for (; first + kLaneWidth <= l.outputs; first += kLaneWidth)
      dense_block<1>(columns, bias, inputs, l.outputs, first, in, relu, out);
    for (; first < l.outputs; ++first) {  // the last few
      float sum = bias[first];
      for (std::uint32_t i = 0; i < inputs; ++i)
        sum += columns[std::size_t(i) * l.outputs + first] * in[i];
      out[first] = relu ? std::max(sum, 0.0f) : sum;
    }
    in = out;
  }
  return in[0];
}

std::string policy_network_to_json(const PolicyNetwork& network, const ModelInputs& inputs,
                                   std::string_view provenance) {
  nlohmann::ordered_json json;
  json["format"] = kFormat;
  json["version"] = kVersion;
  const auto names = [](std::span<const std::string_view> list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (std::string_view name : list) out.push_back(name);
    return out;
  };
  const auto layers = [](const std::vector<DenseLayer>& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const DenseLayer& l : list)
      out.push_back(
          {{"inputs", l.inputs}, {"outputs", l.outputs}, {"weights", l.weights}, {"bias", l.bias}});
    return out;
  };
  json["features"] = names(inputs.features);
  json["node_features"] = names(inputs.node_features);
  json["encoder"] = layers(network.encoder().layers());
  json["layers"] = layers(network.layers());
  json["training"] = provenance.empty() ? nlohmann::ordered_json::object()
                                        : nlohmann::ordered_json::parse(provenance);
  return json.dump(1) + "\n";
}

namespace {

// Reads the model's members; each failure names the member it was reading.
class ModelReader {
 public:
  explicit ModelReader(std::string_view source) : source_(source) {}

  Expected<PolicyNetwork> read(const nlohmann::json& json, const ModelInputs& inputs) const {
    if (!json.is_object()) return fail("the top level", "an object");
    const auto format = member(json, "format");
    if (!format || !format->is_string() || format->get<std::string>() != kFormat)
      return fail("format", fmt::format("\"{}\" (a hetsched learned-policy model)", kFormat));
    const auto version = member(json, "version");
    if (!version || !version->is_number_integer() || version->get<int>() != kVersion)
      return fail("version", fmt::format("{}", kVersion));
    if (auto ok = read_names(json, "features", inputs.features); !ok)
      return tl::unexpected(ok.error());
    if (auto ok = read_names(json, "node_features", inputs.node_features); !ok)
      return tl::unexpected(ok.error());
    // The encoder: none, or node features → width, then 3·width → width per round.
    const auto encoder = member(json, "encoder");
    if (!encoder || !encoder->is_array()) return fail("encoder", "a list of layers (maybe empty)");
    std::vector<DenseLayer> encoder_layers;
    std::size_t width = inputs.node_features.size();
    for (std::size_t k = 0; k < encoder->size(); ++k) {
      auto layer = read_layer((*encoder)[k], fmt::format("encoder[{}]", k), width);
      if (!layer) return tl::unexpected(layer.error());
      if (k > 0 && layer->outputs * 3 != layer->inputs)
        return fail(fmt::format("encoder[{}].outputs", k), fmt::format("{}", layer->inputs / 3));
      width = 3 * std::size_t{layer->outputs};
      encoder_layers.push_back(std::move(*layer));
    }
    const std::size_t embedding = encoder_layers.empty() ? 0 : width / 3;
    const auto layers = member(json, "layers");
    if (!layers || !layers->is_array() || layers->empty())
      return fail("layers", "a non-empty list of layers");
    std::vector<DenseLayer> out;
    width = inputs.features.size() + embedding;
    for (std::size_t k = 0; k < layers->size(); ++k) {
      const std::string where = fmt::format("layers[{}]", k);
      auto layer = read_layer((*layers)[k], where, width);
      if (!layer) return tl::unexpected(layer.error());
      width = layer->outputs;
      out.push_back(std::move(*layer));
    }
    if (width != 1) return fail("layers", "a last layer with one output (the score)");
    return PolicyNetwork(std::move(out), GraphEncoder(std::move(encoder_layers)));
  }

 private:
  // The list of names under `key`, which must be `expected`.
  Status read_names(const nlohmann::json& json, const char* key,
                    std::span<const std::string_view> expected) const {
    const auto list = member(json, key);
    if (!list || !list->is_array()) return fail(key, "a list of feature names");
    std::vector<std::string> names;
    for (const auto& f : *list) {
      if (!f.is_string()) return fail(key, "a list of feature names");
      names.push_back(f.get<std::string>());
    }
    if (!std::equal(names.begin(), names.end(), expected.begin(), expected.end()))
      return failure(
          fmt::format("{}: the model was trained on the {} [{}], this build's policy reads [{}]: "
                      "train it again (hetsched train)",
                      source_, key, fmt::join(names, ", "), fmt::join(expected, ", ")));
    return {};
  }
  static const nlohmann::json* member(const nlohmann::json& json, const char* name) {
    const auto it = json.find(name);
    return it == json.end() ? nullptr : &*it;
  }
  tl::unexpected<std::string> fail(std::string_view where, std::string_view expected) const {
    return failure(fmt::format("{}: {}: expected {}", source_, where, expected));
  }
  Expected<std::vector<float>> numbers(const nlohmann::json* json, const std::string& where,
                                       std::size_t count) const {
    if (json == nullptr || !json->is_array() || json->size() != count)
      return fail(where, fmt::format("a list of {} numbers", count));
    std::vector<float> out;
    out.reserve(count);
    for (const auto& v : *json) {
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        return fail(where, "finite numbers only");
      out.push_back(v.get<float>());
    }
    return out;
  }
  Expected<DenseLayer> read_layer(const nlohmann::json& json, const std::string& where,
                                  std::size_t inputs) const {
    if (!json.is_object()) return fail(where, "an object with inputs, outputs, weights, bias");
    const auto in = member(json, "inputs");
    const auto outs = member(json, "outputs");
    if (!in || !in->is_number_unsigned() || in->get<std::size_t>() != inputs)
      return fail(where + ".inputs", fmt::format("{} (the previous layer's outputs)", inputs));
    if (!outs || !outs->is_number_unsigned() || outs->get<std::size_t>() == 0 ||
        outs->get<std::size_t>() > 4096)
      return fail(where + ".outputs", "a whole number from 1 to 4096");
    DenseLayer layer;
    layer.inputs = static_cast<std::uint32_t>(inputs);
    layer.outputs = outs->get<std::uint32_t>();
    auto weights = numbers(member(json, "weights"), where + ".weights",
                           std::size_t(layer.inputs) * layer.outputs);
    if (!weights) return tl::unexpected(weights.error());
    auto bias = numbers(member(json, "bias"), where + ".bias", layer.outputs);
    if (!bias) return tl::unexpected(bias.error());
    layer.weights = std::move(*weights);
    layer.bias = std::move(*bias);
    return layer;
  }

  std::string_view source_;
};

}  // namespace

Expected<PolicyNetwork> parse_policy_network(std::string_view text, std::string_view source,
                                             const ModelInputs& inputs) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return failure(
        fmt::format("{}: byte {}: not a JSON model file ({})", source, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number out of range, ...
    return failure(fmt::format("{}: not a JSON model file ({})", source, e.what()));
  }
  return ModelReader(source).read(json, inputs);
}

Expected<PolicyNetwork> read_policy_network(const std::string& path, const ModelInputs& inputs) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return failure(fmt::format("{}: cannot open the model file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_policy_network(text.str(), path, inputs);
}

}  // namespace hetsched
