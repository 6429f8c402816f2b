#!/usr/bin/env bash
# Lines of code (.ts files, wc -l; no tests: nothing under test/, no *.test.ts) per folder.
# usage: loc.sh <tree> <folder>...   prints "folder files lines"; a folder "X/." counts only X's own top-level files.
cd "$1"; shift
for d in "$@"; do
  if [[ $d == */. ]]; then list=$(find "${d%/.}" -maxdepth 1 -type f -name '*.ts' ! -name '*.test.ts' 2>/dev/null)
  else list=$(find "$d" -type f -name '*.ts' ! -name '*.test.ts' ! -path '*/node_modules/*' 2>/dev/null); fi
  n=$(printf '%s\n' "$list" | grep -c . || true)
  l=$( [ "$n" -gt 0 ] && printf '%s\n' "$list" | xargs cat | wc -l || echo 0)
  echo "$d $n $l"
done
