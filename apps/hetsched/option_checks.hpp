// Checks for numeric command-line options. CLI11's own range checks let NaN through
// (every comparison with NaN is false), and an unsigned option takes "-1" as 2^64-1; these
// read the text as a user wrote it and refuse NaN, infinities, signs on seeds and values
// out of range, naming what was expected.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hetsched::cli {

// The number `text` spells, or NaN when it is not one whole number.
double parse_option_number(const std::string& text);
// A finite number in [min, max].
CLI::Validator finite_range(double min, double max);
// A finite number >= 0, and > 0.
extern const CLI::Validator finite_non_negative;
extern const CLI::Validator finite_positive;
// A seed: decimal digits only, at most 2^64 - 1.
extern const CLI::Validator seed_value;

// Adds seed_value to every option named --seed of the app and its subcommands, so that
// no command can forget it.
void check_every_seed(CLI::App& app);

}  // namespace hetsched::cli
