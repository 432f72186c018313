#!/usr/bin/env bash
# Fails when a module of the library includes a header of a module it may not use. The
# modules and what each may use come from CMake (cmake/HetschedModule.cmake writes one line
# per module, "name: dependency ...", lowest first); a module may use those it names and,
# through them, what they name. Every file under src/<module>/ and include/hetsched/<module>/
# is checked, for public headers ("hetsched/<module>/...") and for another module's private
# ones reached by a relative path ("../<module>/..."). Run by ctest as `module_layers`:
#   module_layers.sh SOURCE_DIR MODULES_FILE
set -euo pipefail
root=$(cd "$1" && pwd -P)
modules_file=$2

declare -A direct allowed
order=()
while IFS=: read -r name dependencies; do
  [[ -z $name ]] && continue
  order+=("$name")
  direct[$name]=$dependencies
done <"$modules_file"

# What each module may use: itself, its dependencies and theirs (each dependency is declared
# before the module, so its own set is already complete).
for name in "${order[@]}"; do
  set_of=" $name "
  for dependency in ${direct[$name]}; do
    for used in ${allowed[$dependency]}; do
      [[ $set_of == *" $used "* ]] || set_of+="$used "
    done
  done
  allowed[$name]=$set_of
done

failed=0
cd "$root"
for name in "${order[@]}"; do
  for folder in "src/$name" "include/hetsched/$name"; do
    [[ -d $folder ]] || continue
    while IFS= read -r hit; do
      file=${hit%%:*}
      rest=${hit#*:}
      line=${rest%%:*}
      # The module named by the include (matched in bash: a process per line took seconds).
      [[ ${rest#*:} =~ include\ \"(hetsched|\.\.)/([a-z_]+)/ ]] || continue
      included=${BASH_REMATCH[2]}
      # "../<folder>/" from a file of src/ reaches into another module's private headers.
      [[ ${rest#*:} == *'"../'* && -z ${direct[$included]+declared} ]] && continue
      if [[ ${allowed[$name]} != *" $included "* ]]; then
        echo "module_layers: $file:$line: module '$name' includes a header of '$included'," \
          "which it may not use (it may use:${allowed[$name]})"
        failed=1
      fi
    done < <(grep -rnE '^\s*#\s*include "(hetsched|\.\.)/[a-z_]+/' "$folder" || true)
  done
done

# Every folder of src/ is a declared module, so no code escapes the check.
for folder in src/*/; do
  name=$(basename "$folder")
  if [[ -z ${direct[$name]+declared} ]]; then
    echo "module_layers: src/$name is not a module declared in CMakeLists.txt (hetsched_module)"
    failed=1
  fi
done
if ((failed == 0)); then echo "module_layers: ${#order[@]} modules, no include against the order"; fi
exit "$failed"
