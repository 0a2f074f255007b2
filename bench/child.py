"""Window benches run in a child process: offscreen Qt, a fresh interpreter, JSON back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def offscreen_env(loki_home: str | None = None) -> dict[str, str]:
    """The child's environment: offscreen Qt, this checkout first on the path, and (when
    given) its own data folder with no OLLAMA_HOST of the person's leaking in."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    if loki_home is not None:
        env["LOKI_HOME"] = loki_home
        env.pop("OLLAMA_HOST", None)
    return env


def run_child(
    module: str, *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> dict[str, Any]:
    """`python -m <module> --child <args>`; the measurements are its last stdout line."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--child", *args],
        cwd=REPO,
        env=env if env is not None else offscreen_env(),
        stdout=subprocess.PIPE,
        check=True,
        timeout=timeout,
    )
    data: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return data
