#!/bin/sh
# Records the goldens of crates/cli/tests/dialects.rs from the reference
# programs (not part of CI): plays every scenario of scenarios.json to
# Gemini CLI 0.61.0 (the `today` dialect) and 0.27.4 (the `0.27` dialect)
# against a fake endpoint and writes the normalised results to
# crates/cli/tests/dialects/<dialect>/<scenario>.json.
#
#   REF_GEMINI_061=.../gemini REF_GEMINI_027=.../gemini e2e/reference/record.sh [SCENARIO ...]
#
# Install the references with `npm install --prefix /tmp/g061
# @google/gemini-cli@0.61.0` (and @0.27.4); /work/peers.env sets both.
set -eu
here=$(dirname "$0")
out=$here/../../crates/cli/tests/dialects
python3 "$here/record.py" "${REF_GEMINI_061:?Gemini CLI 0.61.0}" "$out/today" "$@"
python3 "$here/record.py" "${REF_GEMINI_027:?Gemini CLI 0.27.4}" "$out/0.27" "$@"
