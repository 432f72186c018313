#!/usr/bin/env bash
# Fails when the build, tests, examples, benchmarks or docs refer to a path outside the
# repository: a user's clone has nothing beside it (no ../shared), so such a reference
# works only on the developers' machines. Run by ctest as `repository_paths`.
#   1. No tracked file names the developers' ../shared folder.
#   2. Every relative file path an example names (a value ending in a data file's
#      extension) resolves, from the example's folder, to an existing file inside the
#      repository.
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd -P)
cd "$root"
self=scripts/checks/repository_paths.sh
failed=0

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mentions=$(git grep -nF '../shared' -- . ":!$self" || true)
else
  mentions=$(grep -rnF --exclude-dir=build --exclude-dir=.git --exclude-dir=node_modules '../shared' . | grep -v "^./$self:" || true)
fi
if [[ -n $mentions ]]; then
  echo "repository_paths: these lines refer to ../shared, which a user's clone does not have" \
    "(copy the file into data/ and name it there):"
  echo "$mentions"
  failed=1
fi

shopt -s nullglob
for example in examples/*.yaml examples/*.yml examples/*.json; do
  dir=$(dirname "$example")
  # values such as `key: path/to/file.json` or `"key": "path/to/file.json"`, found in one pass
  # over the file (line:value), not a process per line
  while IFS= read -r hit; do
    [[ -z $hit ]] && continue
    line_number=${hit%%:*}
    path=${hit#*:}
    path=${path#:}
    path=${path#"${path%%[![:space:]]*}"}
    path=${path#\"}
    path=${path%\"}
    [[ -z $path ]] && continue
    if [[ $path == /* ]]; then
      echo "$example:$line_number: absolute path '$path': name a file of the repository by a relative path"
      failed=1
      continue
    fi
    resolved=$(realpath -m "$dir/$path")
    if [[ $resolved != "$root"/* ]]; then
      echo "$example:$line_number: '$path' resolves outside the repository ($resolved)"
      failed=1
    elif [[ ! -f $resolved ]]; then
      echo "$example:$line_number: '$path' names no file of the repository"
      failed=1
    fi
  done < <(grep -noE ':[[:space:]]*"?[^"[:space:]{},]+\.(json|trace|csv|xml|yaml|yml|txt)"?' "$example" || true)
done

if ((failed)); then exit 1; fi
echo "repository_paths: no reference outside the repository"
