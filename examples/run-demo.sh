#!/usr/bin/env bash
# Replays a recorded session (no API key, no network) in a scratch copy of
# examples/demo: the model's calls to read_file and write_file run for real,
# and each call is shown as the terminal UI shows it.
#
# gemini-rs: $GEMINI_RS if set, else the one on PATH, else one built from
# the repository this folder sits in (which needs Rust). Nothing else
# outside examples/ is used; the scratch folder is removed at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ -n "${GEMINI_RS:-}" ]; then
  bin="$GEMINI_RS"
elif bin="$(command -v gemini-rs)"; then
  :
elif [ -f "$here/../Cargo.toml" ] && command -v cargo >/dev/null; then
  echo "== building gemini-rs (release; the first build takes a few minutes)"
  cargo build --release --quiet --manifest-path "$here/../Cargo.toml" -p gemini-rs
  bin="$here/../target/release/gemini-rs"
else
  echo "error: no gemini-rs found: install it (see the README's Install section) or set GEMINI_RS to its path." >&2
  exit 1
fi
echo "== gemini-rs: $bin"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project"
cp -r "$here/demo/." "$work/project/"
project="$(cd "$work/project" && pwd -P)"
# A scratch home whose trustedFolders.json trusts the scratch project, and
# nothing else: the demo leaves the user's own ~/.gemini alone.
mkdir -p "$work/home/.gemini"
printf '{\n  "%s": "TRUST_FOLDER"\n}\n' "$project" >"$work/home/.gemini/trustedFolders.json"
echo "== scratch project: $project (trusted in a scratch home; both removed at the end)"
cd "$project"

# The value of "key":"..." in one JSON line, its escapes kept.
field() {
  local re="\"$1\":\"((\\\\.|[^\"\\\\])*)\""
  if [[ $2 =~ $re ]]; then printf '%s' "${BASH_REMATCH[1]}"; fi
}

# Each tool call as a card line (" ✓ read_file NOTES.md"), the answer's text
# as it streams.
declare -A calls=()
show() {
  local line type id name open=0
  while IFS= read -r line; do
    type="$(field type "$line")"
    case "$type" in
    tool_use)
      id="$(field tool_id "$line")"
      name="$(field tool_name "$line")"
      calls[$id]="$name $(field file_path "$line")$(field command "$line")"
      ;;
    tool_result)
      id="$(field tool_id "$line")"
      if [ "$(field status "$line")" = success ]; then icon="✓"; else icon="x"; fi
      [ "$open" = 0 ] || printf '\n'
      open=0
      printf ' %s %s\n' "$icon" "${calls[$id]:-$id}"
      ;;
    message)
      if [ "$(field role "$line")" = assistant ]; then
        text="$(field content "$line")"
        printf '%b' "${text//\\\"/\"}"
        open=1
      fi
      ;;
    esac
  done
  [ "$open" = 0 ] || printf '\n'
}

GEMINI_CLI_HOME="$work/home" "$bin" --fake-responses "$here/demo.responses" \
  --approval-mode=auto_edit -o stream-json "Turn NOTES.md into a CHANGELOG.md" </dev/null | show
echo "== CHANGELOG.md written by the agent:"
cat CHANGELOG.md
