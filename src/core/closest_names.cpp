#include "hetsched/core/closest_names.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace hetsched {

// ASCII only, as std::tolower in the C locale (the program never sets another), inlined:
// name lookups run once per task of a big input.
bool equals_ignoring_case(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view wrong,
                                       const std::vector<std::string>& valid, std::size_t limit) {
  // In half edits: a name the user shortened ("A100" for "A100-80GB", "v5e" for
  // "TPU-v5e") is half an edit from the part of it they wrote, nearer than any name with
  // a wrong character. The part is the window of the name, as long as the wrong name, that
  // is nearest to it.
  const auto distance = [&](std::string_view name) {
    std::size_t d = 2 * edit_distance(wrong, name);
    if (!wrong.empty())
      for (std::size_t start = 0; start + wrong.size() <= name.size() && name.size() > wrong.size();
           ++start)
        d = std::min(d, 2 * edit_distance(wrong, name.substr(start, wrong.size())) + 1);
    return d;
  };
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, index)
  for (std::size_t i = 0; i < valid.size(); ++i) ranked.emplace_back(distance(valid[i]), i);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < limit; ++i)
    out.push_back(valid[ranked[i].second]);
  return out;
}

std::string unknown_name_message(std::string_view what, std::string_view wrong,
                                 const std::vector<std::string>& valid) {
  std::string out = "unknown " + std::string(what) + " '" + std::string(wrong) + "'";
  const auto nearest = closest_names(wrong, valid);
  if (!nearest.empty()) {
    out += " (closest: ";
    for (std::size_t i = 0; i < nearest.size(); ++i) out += (i ? ", " : "") + nearest[i];
    out += ")";
  }
  return out;
}

}  // namespace hetsched
