#!/usr/bin/env bash
# The house rule: no Rust source file over 600 lines (tests included).
# Prints each file over the limit and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=600
over=$(git ls-files -z -- '*.rs' | xargs -0 wc -l | awk -v l="$limit" '$2 != "total" && $1 > l { print "  " $2 ": " $1 " lines" }')
if [ -n "$over" ]; then
  echo "Rust files over $limit lines (split them by job):" >&2
  echo "$over" >&2
  exit 1
fi
echo "file sizes: every Rust file is at most $limit lines"
