#include "json_syntax_error.hpp"

#include <nlohmann/json.hpp>

namespace hetsched::io_detail {
namespace {

// Accepts every event and keeps the first error.
struct FirstSyntaxError : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    found = JsonSyntaxError{position > 0 ? position - 1 : 0, error.what()};  // position: 1-based
    return false;
  }
  std::optional<JsonSyntaxError> found;
};

}  // namespace

std::optional<JsonSyntaxError> first_json_syntax_error(std::string_view text) {
  FirstSyntaxError handler;
  (void)nlohmann::json::sax_parse(text, &handler, nlohmann::json::input_format_t::json, true);
  return handler.found;
}

}  // namespace hetsched::io_detail
