#!/usr/bin/env bash
# A large repository (#29.3), gemini-rs beside Gemini CLI 0.61 on the same
# generated tree: 100,000 files in 10,000 folders (src/pNN/mNN), nested
# .gitignores (the root's, one per src/pNN, one per 10th leaf), three
# GEMINI.md files and a 1 GB sparse file. Not part of CI. Prints, each as
# the median of RUNS runs with the two programs run in turn:
#  - start-up: from the launch of `-p hi` to its first model request
#    (a fake endpoint on 127.0.0.1 records the arrival; target < 100 ms);
#  - one replayed tool call each of glob, grep_search (search_file_content),
#    list_directory, read_many_files and a prompt with an @folder, whole
#    runs, with their peak memory (GNU time);
#  - grep_search and glob beside rg and fd on the same search: the tool's
#    share (its run minus a one-turn run) against the command's time.
# Env: RUNS (default 3), BIN (a prebuilt gemini-rs), REF (Gemini CLI's
#      `gemini`; installed with npm under target/bench-ref when missing),
#      SKIP_REF=1 (gemini-rs alone).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-3}"
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
if [ -z "${SKIP_REF:-}" ] && [ ! -x "$ref" ]; then
  npm install --silent --prefix "$root/target/bench-ref" @google/gemini-cli@0.61.0 >&2
fi
rg_bin="$(command -v rg || true)"
fd_bin="$(command -v fd || command -v fdfind || true)"

work="$(mktemp -d)"
trap 'kill "$endpoint_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree" "$work/home/.gemini"
python3 - "$tree" <<'PY'
import os, sys
t = sys.argv[1]
def write(path, text):
    with open(path, "w") as f:
        f.write(text)
write(os.path.join(t, ".gitignore"), "*.log\nbuild/\n")
for p in range(100):
    pkg = os.path.join(t, "src", f"p{p:02}")
    os.makedirs(pkg)
    write(os.path.join(pkg, ".gitignore"), "*.tmp\n")
    for m in range(100):
        leaf = os.path.join(pkg, f"m{m:02}")
        os.makedirs(leaf)
        if m % 10 == 0:
            write(os.path.join(leaf, ".gitignore"), "generated_*\n")
        for f in range(10):
            # 10 files a folder: 8 kept, one each for the package's and the
            # folder's (or the root's) ignore rules.
            name = {8: "cache.tmp", 9: "generated_9.txt" if m % 10 == 0 else "trace.log"}.get(f, f"file_{f}.txt")
            needle = f"needle_{p}_{m}" if f == 3 else "nothing here"
            write(os.path.join(leaf, name),
                  f"// file {p}/{m}/{f}\nfn main() {{ println!(\"{needle}\"); }}\n" + "x = 1\n" * 20)
write(os.path.join(t, "GEMINI.md"), "# Project\nThe root context.\n")
write(os.path.join(t, "src", "p00", "GEMINI.md"), "# p00\nPackage context.\n")
write(os.path.join(t, "src", "p50", "m50", "GEMINI.md"), "# m50\nDeep context.\n")
os.makedirs(os.path.join(t, "data"))
with open(os.path.join(t, "data", "big.bin"), "wb") as f:
    f.truncate(1 << 30)  # 1 GB, sparse
PY
git -C "$tree" init -q
echo "tree: $(find "$tree" -type f | wc -l) files in $(find "$tree" -type d | wc -l) folders"

# The fake endpoint: answers every generate request with one text turn and
# appends the arrival time (epoch seconds) of each to $work/arrivals.
cat > "$work/endpoint.py" <<'PY'
import http.server, json, sys, time
log = sys.argv[1]
answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
          "finishReason": "STOP", "index": 0}],
          "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        now = time.time()
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if "generateContent" in self.path or "GenerateContent" in self.path:
            with open(log, "a") as f:
                f.write(f"{now:.6f} {self.path}\n")
        if "stream" in self.path.lower():
            body = ("data: " + json.dumps(answer) + "\r\n\r\n").encode()
            ctype = "text/event-stream"
        elif "countTokens" in self.path:
            body, ctype = b'{"totalTokens": 10}', "application/json"
        else:
            body, ctype = json.dumps(answer).encode(), "application/json"
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$work/endpoint.py" "$work/arrivals" > "$work/port" &
endpoint_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
endpoint="http://127.0.0.1:$(cat "$work/port")"

export HOME="$work/home" GEMINI_CLI_HOME="$work/home" GEMINI_API_KEY=dummy GEMINI_RS_NO_RECORDING=1
export GEMINI_CLI_SYSTEM_SETTINGS_PATH="$work/none.json" GEMINI_CLI_NO_RELAUNCH=true
export GEMINI_CLI_TRUST_WORKSPACE=true NO_COLOR=1
printf '{"model":{"name":"gemini-2.5-flash"},"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' \
  > "$work/home/.gemini/settings.json"
cd "$tree"

turn() { # turn PARTS: one replayed model turn
  printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":%s},"finishReason":"STOP","index":0}]}]}\n' "$1"
}
call() { # call FILE NAME ARGS: a session calling one tool, then a text turn
  { turn "[{\"functionCall\":{\"name\":\"$2\",\"args\":$3}}]"; turn '[{"text":"done"}]'; } > "$work/$1"
}
turn '[{"text":"done"}]' > "$work/none"
call glob glob '{"pattern":"**/GEMINI.md"}'
call grep grep_search '{"pattern":"needle_42_17"}'
call ls list_directory '{"dir_path":"src/p07"}'
call many read_many_files '{"include":["src/p03/**/*.txt"]}'

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f\n", (b-a)*1000}'; }
# once PROG ARGS...: "<wall ms> <peak RSS KB>" of one run
once() {
  local t0=$EPOCHREALTIME
  /usr/bin/time -o "$work/time" -f '%M' timeout 600 "$@" >"$work/out" 2>&1 </dev/null || true
  local t1=$EPOCHREALTIME
  echo "$(ms "$t0" "$t1") $(tail -n1 "$work/time")"
}
# first_request PROG: ms from launch to the first model request
first_request() {
  : > "$work/arrivals"
  local t0=$EPOCHREALTIME
  GOOGLE_GEMINI_BASE_URL="$endpoint" timeout 600 "$1" -m gemini-2.5-flash -p hi >"$work/out" 2>&1 </dev/null || true
  local first; first=$(head -n1 "$work/arrivals" | cut -d' ' -f1)
  if [ -z "$first" ]; then echo "no request from $1:" >&2; tail -5 "$work/out" >&2; echo 0; return; fi
  ms "$t0" "$first"
}
progs=("$bin")
[ -z "${SKIP_REF:-}" ] && progs+=("$ref")
row() { # row LABEL RS_MS RS_KB [GC_MS GC_KB]
  if [ $# -ge 5 ]; then
    awk -v l="$1" -v a="$2" -v ka="$3" -v b="$4" -v kb="$5" 'BEGIN {
      printf "%-34s gemini-rs %8.0f ms %5.0f MB   Gemini CLI 0.61 %8.0f ms %5.0f MB   ratio %.3fx\n",
        l, a, ka / 1024, b, kb / 1024, a / b }'
  else
    awk -v l="$1" -v a="$2" -v ka="$3" 'BEGIN { printf "%-34s gemini-rs %8.0f ms %5.0f MB\n", l, a, ka / 1024 }'
  fi
}
# measure LABEL ARGS...: each program RUNS times in turn; median wall, max RSS
measure() {
  local label="$1"; shift
  local p i out=()
  declare -A walls=() rss=()
  for i in $(seq "$runs"); do
    for p in "${progs[@]}"; do
      read -r w k < <(once "$p" "$@")
      walls[$p]+="$w "
      [ "$k" -gt "${rss[$p]:-0}" ] && rss[$p]=$k
    done
  done
  for p in "${progs[@]}"; do
    out+=("$(printf '%s\n' ${walls[$p]} | median)" "${rss[$p]}")
  done
  row "$label" "${out[@]}"
  last_rs_ms=${out[0]}
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs, pairs run in turn"
declare -A first=()
for i in $(seq "$runs"); do
  for p in "${progs[@]}"; do first[$p]+="$(first_request "$p") "; done
done
a=$(printf '%s\n' ${first[$bin]} | median)
if [ -z "${SKIP_REF:-}" ]; then
  b=$(printf '%s\n' ${first[$ref]} | median)
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%-34s gemini-rs %8.1f ms          Gemini CLI 0.61 %8.1f ms          ratio %.3fx (target < 100 ms)\n", "start-up to the first request", a, b, a / b }'
else
  printf '%-34s gemini-rs %8.1f ms (target < 100 ms)\n' "start-up to the first request" "$a"
fi

replay() { echo -m gemini-2.5-flash --approval-mode=yolo --fake-responses "$work/$1"; }
# shellcheck disable=SC2046
measure "one-turn replay (no tool)" $(replay none) -p go; base=$last_rs_ms
# shellcheck disable=SC2046
measure "glob **/GEMINI.md" $(replay glob) -p go; glob_ms=$last_rs_ms
# shellcheck disable=SC2046
measure "grep_search one needle" $(replay grep) -p go; grep_ms=$last_rs_ms
# shellcheck disable=SC2046
measure "list_directory src/p07" $(replay ls) -p go
# shellcheck disable=SC2046
measure "read_many_files src/p03/**/*.txt" $(replay many) -p go
# shellcheck disable=SC2046
measure "@src/p05 in the prompt" $(replay none) -p "@src/p05 summarise"

# The tools beside the commands doing the same search.
cmd_ms() { for _ in $(seq "$runs"); do read -r w _ < <(once "$@"); echo "$w"; done | median; }
if [ -n "$rg_bin" ]; then
  r=$(cmd_ms "$rg_bin" -n needle_42_17)
  awk -v t="$grep_ms" -v b="$base" -v r="$r" 'BEGIN { printf "grep_search share %.0f ms (its run %.0f - one-turn run %.0f)   rg %.0f ms   ratio %.2fx (target < 1.2x)\n", t - b, t, b, r, (t - b) / r }'
else
  echo "rg not installed: apt-get install ripgrep"
fi
if [ -n "$fd_bin" ]; then
  f=$(cmd_ms "$fd_bin" -g GEMINI.md)
  awk -v t="$glob_ms" -v b="$base" -v r="$f" 'BEGIN { printf "glob share %.0f ms (its run %.0f - one-turn run %.0f)   fd %.0f ms   ratio %.2fx\n", t - b, t, b, r, (t - b) / r }'
else
  echo "fd not installed: apt-get install fd-find"
fi
