"""The real OpenAI-compatible server (llama-cpp-python + SmolLM2-135M), when `make real-server`
built it: started once per module on a free loopback port, stopped after."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO

BUILT = REPO / ".real-server"
PYTHON = BUILT / "venv" / "bin" / "python"
MODEL = BUILT / "model.gguf"
START_TIMEOUT_S = 180.0  # loading the model on a loaded 2-core machine
N_CTX = 2048


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (…/v1) of a running llama_cpp.server; skips when it was not built."""
    if not (BUILT / ".built").exists() or not MODEL.exists():
        pytest.skip("the real server is not built: run `make real-server` (~7 min) first")
    port = _free_port()
    log = tmp_path_factory.mktemp("real-server") / "server.log"
    with log.open("wb") as out:
        child = subprocess.Popen(
            [
                str(PYTHON),
                "-m",
                "llama_cpp.server",
                "--model",
                str(MODEL),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(N_CTX),
                "--model_alias",
                "smollm2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(url, child, log)
        yield url
    finally:
        child.terminate()
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _wait_ready(url: str, child: subprocess.Popen[bytes], log: Path) -> None:
    end = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < end:
        if child.poll() is not None:
            tail = log.read_text()[-2000:]
            raise AssertionError(f"the server exited ({child.returncode}): {tail}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"the server did not answer in {START_TIMEOUT_S:g} s")
