#!/usr/bin/env bash
# Wall time and peak memory of `gemini-rs --version` and of a replayed
# 3-tool session (examples/demo.responses: read_file, write_file, read_file).
# Targets on a 2-core machine: --version < 10 ms and < 10 MB;
# replayed session < 100 ms and < 30 MB. Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
runs="${RUNS:-20}"
if [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time
fi
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p gemini-rs
bin="$root/target/release/gemini-rs"

# measure NAME CMD...: prints the median wall ms and the max RSS over $runs runs.
measure() {
  local name="$1"; shift
  local walls=() rss_max=0
  for _ in $(seq "$runs"); do
    local out
    out=$( { /usr/bin/time -f '%e %M' "$@" >/dev/null 2>/dev/null; } 2>&1 | tail -n1 )
    walls+=("$(awk '{printf "%.1f", $1*1000}' <<<"$out")")
    local rss; rss=$(awk '{print $2}' <<<"$out")
    [ "$rss" -gt "$rss_max" ] && rss_max=$rss
  done
  local median; median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-28s median %7s ms   max RSS %6.1f MB\n' "$name" "$median" "$(awk -v k="$rss_max" 'BEGIN{print k/1024}')"
}

measure "gemini-rs --version" "$bin" --version

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/demo/." "$work/"
cd "$work"
export GEMINI_CLI_HOME="$work/.home"
measure "replayed 3-tool session" "$bin" --fake-responses "$root/examples/demo.responses" \
  --approval-mode=auto_edit "Turn NOTES.md into a CHANGELOG.md"
