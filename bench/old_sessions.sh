#!/usr/bin/env bash
# Start-up with old sessions (#29.4): a one-turn replay in a project whose
# chats folder holds about SIZE_MB of earlier sessions (JSONL files of about
# 1 MB each, recent, so retention keeps them and every run sees them all).
# Session retention is on by default (as in Gemini CLI 0.61) and looks at
# every session file at start-up; the same replay with
# `general.sessionRetention.enabled: false` is the floor.
# Prints median wall time, median CPU time (user+sys) and max RSS of each
# binary of BINS (default: the release build) with retention on and off,
# and Gemini CLI 0.61 beside them (retention on) unless SKIP_REF is set.
# Not part of CI.
#
# Env: RUNS (default 5), SIZE_MB (default 100), BINS (prebuilt gemini-rs
#      binaries, space-separated, e.g. "before/gemini-rs after/gemini-rs"),
#      REF (Gemini CLI's `gemini`; installed with npm under target/bench-ref
#      when missing), REF_RUNS (default 3), SKIP_REF=1 (gemini-rs alone).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-5}"
size_mb="${SIZE_MB:-100}"
ref_runs="${REF_RUNS:-3}"
if [ ! -x /usr/bin/time ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time
fi
bins=()
if [ -n "${BINS:-}" ]; then
  for b in $BINS; do bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"); done
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p gemini-rs
  bins+=("$root/target/release/gemini-rs")
fi
ref="${REF:-$root/target/bench-ref/node_modules/.bin/gemini}"
if [ -z "${SKIP_REF:-}" ] && [ ! -x "$ref" ]; then
  npm install --silent --prefix "$root/target/bench-ref" @google/gemini-cli@0.61.0 >&2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/project"
mkdir -p "$project" "$work/home/.gemini"
export HOME="$work/home" GEMINI_CLI_HOME="$work/home" GEMINI_API_KEY=dummy
export GEMINI_CLI_SYSTEM_SETTINGS_PATH="$work/home/no-system-settings.json" GEMINI_CLI_TRUST_WORKSPACE=true
export GEMINI_CLI_NO_RELAUNCH=true NO_COLOR=1
cd "$project"
printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello."}]},"index":0,"finishReason":"STOP"}]}]}\n' \
  > "$work/one.responses"
settings() { # settings true|false
  printf '{"model":{"name":"gemini-2.5-flash"},"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"sessionRetention":{"enabled":%s}}}\n' \
    "$1" > "$work/home/.gemini/settings.json"
}
settings true

# One run makes the project's chats folder (wherever this program keeps it).
"${bins[0]}" -m gemini-2.5-flash --fake-responses "$work/one.responses" -p hi >/dev/null 2>&1
chats=$(dirname "$(find "$work/home/.gemini/tmp" -path '*/chats/session-*.jsonl' | head -n1)")
[ -d "$chats" ] || { echo "no chats folder was made" >&2; exit 1; }
rm -f "$chats"/session-*

# SIZE_MB sessions of about 1 MB: a metadata line, then 700 turns of a
# prompt and a model answer with a tool call, each update dated now.
python3 - "$chats" "$size_mb" <<'EOF'
import json, sys, uuid, datetime
chats, count = sys.argv[1], int(sys.argv[2])
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M")
body = "x" * 1000
for n in range(count):
    sid = str(uuid.uuid4())
    lines = [json.dumps({"sessionId": sid, "projectHash": "0" * 64, "startTime": now,
                         "lastUpdated": now, "kind": "main"})]
    for t in range(700):
        lines.append(json.dumps({"id": f"u{t}", "timestamp": now, "type": "user",
                                 "content": [{"text": f"turn {t}"}]}))
        lines.append(json.dumps({"id": f"g{t}", "timestamp": now, "type": "gemini",
            "content": "Reading.", "thoughts": [], "model": "gemini-2.5-flash",
            "toolCalls": [{"id": f"c{t}", "name": "read_file", "args": {"file_path": "f.txt"},
                           "status": "success", "timestamp": now,
                           "result": [{"functionResponse": {"id": f"c{t}", "name": "read_file",
                                                            "response": {"output": body}}}]}]}))
        lines.append(json.dumps({"$set": {"lastUpdated": now}}))
    with open(f"{chats}/session-{stamp}-{sid[:8]}.jsonl", "w") as f:
        f.write("\n".join(lines) + "\n")
EOF
files=$(find "$chats" -name 'session-*' | wc -l)
size=$(du -sm "$chats" | cut -f1)

# one_run PROG: prints "<wall ms> <user+sys ms> <max RSS KB>"; the replay's
# own session file is removed after, so every run sees the same folder.
one_run() {
  touch "$work/mark"
  local t0=$EPOCHREALTIME
  /usr/bin/time -o "$work/time" -f '%U %S %M' "$1" -m gemini-2.5-flash \
    --fake-responses "$work/one.responses" -p hi >"$work/stdout" 2>"$work/stderr" || true
  local t1=$EPOCHREALTIME
  if ! grep -q "Hello." "$work/stdout"; then
    echo "$1: the replay did not answer:" >&2
    tail -n 20 "$work/stderr" >&2
    exit 1
  fi
  find "$chats" -name 'session-*' -newer "$work/mark" -delete
  local left; left=$(find "$chats" -name 'session-*' | wc -l)
  if [ "$left" -ne "$files" ]; then
    echo "$1: retention deleted old sessions ($left of $files left)" >&2
    exit 1
  fi
  awk -v a="$t0" -v b="$t1" '{printf "%.1f %.0f %d\n", (b-a)*1000, ($1+$2)*1000, $3}' "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}'; }
report() { # report LABEL RUN...
  local label="$1"; shift
  printf '%-44s wall %7.0f ms   cpu %7.0f ms   max RSS %6.1f MB\n' "$label" \
    "$(col 1 "$@" | median)" "$(col 2 "$@" | median)" \
    "$(col 3 "$@" | sort -n | tail -n1 | awk '{print $1/1024}')"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $files old sessions, $size MB; median of $runs"
for bin in "${bins[@]}"; do
  on=() off=()
  for _ in $(seq "$runs"); do
    settings true; on+=("$(one_run "$bin")")
    settings false; off+=("$(one_run "$bin")")
  done
  report "$bin, retention on" "${on[@]}"
  report "$bin, retention off" "${off[@]}"
done
if [ -z "${SKIP_REF:-}" ]; then
  settings true
  gc=()
  for _ in $(seq "$ref_runs"); do gc+=("$(one_run "$ref")"); done
  report "Gemini CLI 0.61, retention on" "${gc[@]}"
fi
