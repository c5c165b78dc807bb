#!/usr/bin/env bash
# Rollouts (#40.7): N concurrent sessions, each doing a five-tool task
# (list_directory, read_file, write_file, replace, read_file, then an
# answer) in its own folder against a fake Gemini API answering every
# request after LATENCY_MS (bench/fake_gemini.py):
#  - acp:   N sessions in one `gemini-rs --acp` process (examples/ray/acp_driver.py);
#  - procs: N headless gemini-rs processes started at once, for N up to
#           PROCS_MAX (1,000 of them at 20-50 MB each would crowd a shared
#           machine);
#  - ref:   N Gemini CLI 0.61 processes at once, for N up to REF_MAX (each
#           takes about 200 MB: 1,000 of them do not fit).
# Per run: wall, CPU per session, peak memory (the process's, or the sum of
# the processes' peaks) in all and per session, session start (acp: the
# `session/new` round trip; processes: spawn to the first model request).
# Each session's folder is a plain copy of a 3-file template (the
# copy-on-write `--workspace-from` of #40.2 is not used yet). Not part of CI.
#
# Env: NS (default "1 10 100 1000"), LATENCY_MS (default 200), REF_MAX
#      (default 10), PROCS_MAX (default 100), BIN (a prebuilt gemini-rs; default: release build),
#      REF (Gemini CLI 0.61's `gemini`; default $REF_GEMINI_061).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
ns="${NS:-1 10 100 1000}"
latency="${LATENCY_MS:-200}"
ref_max="${REF_MAX:-10}"
procs_max="${PROCS_MAX:-100}"
if [ -n "${BIN:-}" ]; then
  bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p gemini-rs
  bin="${CARGO_TARGET_DIR:-$root/target}/release/gemini-rs"
fi
ref="${REF:-${REF_GEMINI_061:-}}"

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# Many sessions, many files and sockets.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

mkdir -p "$work/template" "$work/home/.gemini"
printf 'a note\n' > "$work/template/NOTES.md"
printf 'one\n' > "$work/template/a.txt"
printf 'two\n' > "$work/template/b.txt"
printf '{"model":{"name":"gemini-2.5-flash","disableLoopDetection":true,"skipNextSpeakerCheck":true},"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false}}\n' \
  > "$work/home/.gemini/settings.json"
export HOME="$work/home" GEMINI_CLI_HOME="$work/home"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 "$here/fake_gemini.py" "$port" "$latency" &
server_pid=$!
for _ in $(seq 50); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port"

echo "=== rollouts $(date +%H:%M:%S)"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg); model latency ${latency} ms; $bin"
run() { # run MODE N BINARY
  python3 "$here/rollouts.py" "$1" "$2" "$3" "$url" "$work/template" "$work/runs/$1-$2"
  rm -rf "$work/runs/$1-$2" "$work/home/.gemini/tmp"
}
for n in $ns; do
  run acp "$n" "$bin"
  if [ "$n" -le "$procs_max" ]; then
    run procs "$n" "$bin"
  fi
  if [ -n "$ref" ] && [ "$n" -le "$ref_max" ]; then
    run ref "$n" "$ref"
  fi
done
