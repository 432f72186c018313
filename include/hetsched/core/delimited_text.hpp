// Small helpers for delimited text files (the stream-trace importers, which read files with
// read_text_file): split a line on one separator, and parse numbers strictly (the whole field, no
// junk), throwing InputError with the file, line and column of the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"

namespace hetsched::delimited_text {

std::vector<std::string_view> split(std::string_view line, char separator);
// Lines without their terminators ('\n', "\r\n").
std::vector<std::string_view> lines(std::string_view text);
double parse_number(std::string_view field, const SourcePosition& where, std::string_view what);
int parse_integer(std::string_view field, const SourcePosition& where, std::string_view what);

}  // namespace hetsched::delimited_text
