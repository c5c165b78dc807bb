#!/usr/bin/env bash
# Wall time and peak memory of `--version` and of a replayed 3-tool session
# (examples/demo.responses: read_file, write_file, read_file), gemini-rs
# beside Gemini CLI 0.61 on the same work, the two run in turn. Targets on
# a 2-core machine: --version < 10 ms and < 10 MB; replayed session
# < 100 ms and < 30 MB. Not part of CI.
#
# Env: RUNS (default 10); BIN (a prebuilt gemini-rs, skips the release
# build); REF (Gemini CLI's `gemini`; installed with npm under
# target/bench-ref when missing; REF=none measures gemini-rs alone).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-10}"
if [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time
fi
if [ -n "${BIN:-}" ]; then
  bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p gemini-rs
  bin="$root/target/release/gemini-rs"
fi
ref="${REF:-$root/target/bench-ref/node_modules/.bin/gemini}"
if [ "$ref" != none ] && [ ! -x "$ref" ]; then
  npm install --silent --prefix "$root/target/bench-ref" @google/gemini-cli@0.61.0 >&2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# measure CMD...: "<median wall ms> <max RSS MB>" over $runs runs (bash's
# microsecond clock around the command; GNU time for the RSS, its report
# written with -o so the program's own output can go to /dev/null).
measure() {
  local walls=() rss_max=0
  for _ in $(seq "$runs"); do
    local t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 </dev/null || true
    local t1=$EPOCHREALTIME
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)*1000}')")
    /usr/bin/time -o "$work/time" -f '%M' "$@" >/dev/null 2>&1 </dev/null || true
    local rss; rss=$(tail -n1 "$work/time")
    [ "$rss" -gt "$rss_max" ] && rss_max=$rss
  done
  local median; median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$median $(awk -v k="$rss_max" 'BEGIN{printf "%.1f", k/1024}')"
}

# pair LABEL ARGS...: gemini-rs and Gemini CLI 0.61 with ARGS, one after
# the other; both figures and the time ratio.
pair() {
  local label="$1"; shift
  local a b
  a=$(measure "$bin" "$@")
  if [ "$ref" = none ]; then
    printf '%-26s gemini-rs %8.1f ms %6.1f MB\n' "$label" $a
    return
  fi
  b=$(measure "$ref" "$@")
  # shellcheck disable=SC2086
  awk -v l="$label" -v a="$a" -v b="$b" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    printf "%-26s gemini-rs %8.1f ms %6.1f MB   Gemini CLI 0.61 %8.1f ms %6.1f MB   ratio %.3fx\n",
      l, x[1], x[2], y[1], y[2], x[1] / y[1] }'
}

mkdir -p "$work/home"
export HOME="$work/home" GEMINI_API_KEY=dummy GEMINI_CLI_NO_RELAUNCH=true
pair "--version" --version

project="$work/project"
mkdir -p "$project"
cp -r "$root/examples/demo/." "$project/"
cd "$project"
export GEMINI_CLI_HOME="$work/home" GEMINI_CLI_SYSTEM_SETTINGS_PATH="$work/no-system-settings.json"
export GEMINI_CLI_TRUST_WORKSPACE=true  # scratch folders, trusted as harnesses do
# write_file overwrites CHANGELOG.md on every run, so the runs are alike.
pair "replayed 3-tool session" --fake-responses "$root/examples/demo.responses" \
  --approval-mode=auto_edit -p "Turn NOTES.md into a CHANGELOG.md"
