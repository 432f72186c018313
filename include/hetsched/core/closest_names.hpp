// Suggestions for misspelled names: the valid names nearest to a wrong one by
// edit distance (Levenshtein, case-insensitive), for "did you mean" messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

bool equals_ignoring_case(std::string_view a, std::string_view b);
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` valid names, nearest first (ties keep the order of `valid`). A name that
// holds the wrong one with at most a few edits ("TPU-v5e" for "v5e") ranks as half an edit
// more than those edits, ahead of names that differ from it as a whole.
std::vector<std::string> closest_names(std::string_view wrong,
                                       const std::vector<std::string>& valid,
                                       std::size_t limit = 3);

// "unknown <what> 'x' (closest: a, b, c)" — the shared wording of such errors.
std::string unknown_name_message(std::string_view what, std::string_view wrong,
                                 const std::vector<std::string>& valid);

}  // namespace hetsched
