"""Without a screen, opening the window says so in one sentence instead of a Qt abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="X11/Wayland systems only")
def test_no_display_is_reported_plainly(loki_home: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}
    }
    result = subprocess.run(
        [sys.executable, "-m", "loki_desktop"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "écran graphique" in result.stderr
    assert "xcb" not in result.stderr  # Qt never got to blame a missing library
