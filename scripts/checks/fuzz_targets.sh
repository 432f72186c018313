#!/usr/bin/env bash
# Fails when a document parser of the public headers has no fuzz target, or a fuzz target
# has no seeds. Run by ctest as `fuzz_targets`; `make fuzz` runs every fuzz/*_fuzz.cpp.
#   1. Every function `parse_NAME(` declared in include/ that reads a document (a file's
#      text, a request body, a JSON object) is called by some fuzz/*_fuzz.cpp. Parsers of
#      one token or value (those that answer std::optional, and the few named in
#      token_parsers below) are not documents.
#   2. Every fuzz/NAME_fuzz.cpp has FUZZ_SEEDS_NAME in the Makefile.
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd -P)
cd "$root"
failed=0

# Parsers of one value: a URL, a number or an integer of a field, a list of endpoints.
token_parsers=" parse_etcd_state_url parse_endpoints parse_number parse_integer "

parsers=$(grep -rhoE '^[^/(]*\bparse_[a-z_]+\(' include | grep -v 'std::optional<' |
  grep -oE 'parse_[a-z_]+' | sort -u)
for parser in $parsers; do
  [[ $token_parsers == *" $parser "* ]] && continue
  if ! grep -qE "\b$parser\(" fuzz/*_fuzz.cpp; then
    where=$(grep -rlE "\b$parser\(" include | head -1)
    echo "fuzz_targets: $parser ($where) reads a document but no fuzz/*_fuzz.cpp calls it:" \
      "add a target (see fuzz/config_parser_fuzz.cpp) and its seeds in the Makefile"
    failed=1
  fi
done

for target in fuzz/*_fuzz.cpp; do
  name=$(basename "$target" _fuzz.cpp)
  if ! grep -qE "^FUZZ_SEEDS_$name :?=" Makefile; then
    echo "fuzz_targets: $target has no seeds: set FUZZ_SEEDS_$name in the Makefile"
    failed=1
  fi
done
exit $failed
