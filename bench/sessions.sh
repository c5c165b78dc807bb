#!/usr/bin/env bash
# Long sessions (#29.4): a replayed session of N turns (N read_file
# tool-call turns, then a final text) run with --fake-responses.
#  - gemini-rs at each N of TURNS, with and without chat recording
#    (GEMINI_RS_NO_RECORDING=1 turns it off), in pairs: median wall time,
#    time per turn (linear in turns when it stays flat), max RSS, and the
#    recording overhead. Nothing runs between the timed runs but the clean-up
#    of the last one: looking for the session file after each recorded run
#    (find, stat) put the recorded runs 20-30 ms behind on a 2-core VM
#    (+16 to +28 %; +18 and +49 % with an empty `true | head` in its place,
#    +1 and -4 % with nothing), so the file is measured once, after a
#    warm-up run of each variant, and pairs alternate which runs first;
#  - Gemini CLI 0.61 beside gemini-rs (recording on for both, as users run
#    them) at each N of REF_TURNS, pairs run in turn.
# Targets on a 2-core machine: RSS < 100 MB at 10,000 turns; recording adds
# < 5 % wall time. Not part of CI.
#
# Env: RUNS (pairs at each size; default: as many as fit in about 40 s,
#      at least 21), TURNS (default "1000 10000"), REF_TURNS (default
#      1000; empty: gemini-rs alone), REF_RUNS (default 3), BIN (a prebuilt
#      gemini-rs), REF (Gemini CLI's `gemini`; installed with npm under
#      target/bench-ref when missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
turns_list="${TURNS:-1000 10000}"
ref_turns="${REF_TURNS-1000}"
ref_runs="${REF_RUNS:-3}"
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
if [ -n "$ref_turns" ] && [ ! -x "$ref" ]; then
  npm install --silent --prefix "$root/target/bench-ref" @google/gemini-cli@0.61.0 >&2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/project"
mkdir -p "$project" "$work/home/.gemini"
# Ten files read in turn: consecutive calls differ, so loop detection
# (5 identical calls in a row) never fires; Gemini CLI's model-based loop
# check is off (it would ask the replay for an answer it does not hold).
for i in $(seq 0 9); do
  printf 'file %s\nline two\nline three\n' "$i" > "$project/f$i.txt"
done
printf '{"model":{"name":"gemini-2.5-flash","disableLoopDetection":true,"skipNextSpeakerCheck":true},"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' \
  > "$work/home/.gemini/settings.json"

responses() { # responses N: the session file of N turns
  local f="$work/session-$1.responses" i
  [ -s "$f" ] && { echo "$f"; return; }
  for i in $(seq 1 "$1"); do
    printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"Reading file %s."},{"functionCall":{"name":"read_file","args":{"file_path":"f%s.txt"}}}]},"index":0,"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":%s,"candidatesTokenCount":12,"totalTokenCount":%s}}]}\n' \
      "$((i % 10))" "$((i % 10))" "$((1000 + i * 40))" "$((1012 + i * 40))"
  done > "$f"
  printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"All %s files read."}]},"index":0,"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":50000,"candidatesTokenCount":5,"totalTokenCount":50005}}]}\n' "$1" >> "$f"
  echo "$f"
}

export HOME="$work/home" GEMINI_CLI_HOME="$work/home" GEMINI_API_KEY=dummy
export GEMINI_CLI_SYSTEM_SETTINGS_PATH="$work/home/no-system-settings.json" GEMINI_CLI_TRUST_WORKSPACE=true
export GEMINI_CLI_NO_RELAUNCH=true NO_COLOR=1
cd "$project"

# one_run PROG N: one session (fresh chats dir); prints "<wall ms> <max RSS
# KB>" and checks the final answer.
one_run() {
  local file; file=$(responses "$2")
  rm -rf "$work/home/.gemini/tmp"
  local t0=$EPOCHREALTIME
  # -o: GNU time's own report goes to a file, not the program's stderr.
  /usr/bin/time -o "$work/time" -f '%M' "$1" -m gemini-2.5-flash --fake-responses "$file" \
    --approval-mode=yolo -p "Read the files" >"$work/stdout" 2>"$work/stderr" || true
  local t1=$EPOCHREALTIME
  if ! grep -q "All $2 files read." "$work/stdout"; then
    echo "$1: the session of $2 turns did not complete:" >&2
    tail -n 20 "$work/stderr" >&2
    exit 1
  fi
  # Wall time from bash's microsecond clock (time's %e has 10 ms steps).
  awk -v a="$t0" -v b="$t1" '{printf "%.1f %d\n", (b-a)*1000, $1}' "$work/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}'; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
first_per_turn=""
for turns in $turns_list; do
  # A run of each variant first, not counted (cold caches, the binary's
  # first load); its session file is the one measured.
  one_run "$bin" "$turns" >/dev/null
  chats=$(find "$work/home/.gemini/tmp" -path '*/chats/session-*.jsonl' | head -n1)
  if [ -z "$chats" ]; then
    echo "no session file was recorded" >&2
    exit 1
  fi
  size_kb=$(( $(stat -c %s "$chats") / 1024 ))
  warm=$(GEMINI_RS_NO_RECORDING=1 one_run "$bin" "$turns")
  # Without RUNS, enough pairs for about 40 s of runs (at least 21): one
  # run's wall time varies by 10-15 % on a shared 2-core VM, so a median of
  # 21 short runs moves by several percent from batch to batch.
  runs=${RUNS:-$(awk -v w="${warm%% *}" 'BEGIN { n = int(40000 / (2 * w)); print (n < 21 ? 21 : n) }')}
  # Interleaved in ABBA order (each variant first in every other pair), so
  # drift, load and what a run leaves behind hit both variants alike.
  rec=() plain=()
  for i in $(seq "$runs"); do
    if (( i % 2 )); then
      rec+=("$(one_run "$bin" "$turns")")
      plain+=("$(GEMINI_RS_NO_RECORDING=1 one_run "$bin" "$turns")")
    else
      plain+=("$(GEMINI_RS_NO_RECORDING=1 one_run "$bin" "$turns")")
      rec+=("$(one_run "$bin" "$turns")")
    fi
  done
  rec_wall=$(col 1 "${rec[@]}" | median)
  plain_wall=$(col 1 "${plain[@]}" | median)
  rss=$(col 2 "${rec[@]}" "${plain[@]}" | sort -n | tail -n1)
  per_turn=$(awk -v w="$rec_wall" -v n="$turns" 'BEGIN{printf "%.3f", w / n}')
  [ -z "$first_per_turn" ] && first_per_turn=$per_turn
  awk -v n="$turns" -v r="$rec_wall" -v p="$plain_wall" -v k="$rss" -v s="$size_kb" -v t="$per_turn" -v f="$first_per_turn" -v m="$runs" 'BEGIN {
    over = (r - p) * 100 / p
    printf "gemini-rs %6d turns: recording %8.0f ms, without %8.0f ms (overhead %+.1f%%, target < 5%%); %.3f ms a turn (%.2fx the first size); max RSS %.1f MB (target < 100 MB); session file %d KB; medians of %d pairs\n",
      n, r, p, over, t, t / f, k / 1024, s, m
    if (over >= 5 || k / 1024 >= 100) exit 2
  }' || status=2
done

for turns in $ref_turns; do
  rs=() gc=()
  for _ in $(seq "$ref_runs"); do
    rs+=("$(one_run "$bin" "$turns")")
    gc+=("$(one_run "$ref" "$turns")")
  done
  awk -v n="$turns" -v a="$(col 1 "${rs[@]}" | median)" -v b="$(col 1 "${gc[@]}" | median)" \
    -v ka="$(col 2 "${rs[@]}" | sort -n | tail -n1)" -v kb="$(col 2 "${gc[@]}" | sort -n | tail -n1)" 'BEGIN {
    printf "%6d turns, recording on: gemini-rs %8.0f ms %5.1f MB   Gemini CLI 0.61 %9.0f ms %6.1f MB   ratio %.3fx\n",
      n, a, ka / 1024, b, kb / 1024, a / b }'
done
[ "$status" -eq 0 ] || echo "TARGET MISSED"
exit "$status"
