"""The layout audit at 1024×640, 1280×800 and 800×560, in French and English: no widget
squeezed below its minimum, overlapping, outside its window or the screen, no button cut.

Each size runs in its own process (the offscreen platform has one screen, set at start);
the three run side by side. On failure the message is the audit's report, one line a widget
(see tests/ui/layout_audit.py, and docs/layout-audit.md to read it)."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import PYTHON, REPO
from tests.ui.layout_audit import SIZES


def test_every_window_fits_every_laptop_screen() -> None:
    runs = {
        size: subprocess.Popen(
            [PYTHON, "-m", "tests.ui.layout_audit", size, "--json"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for size in SIZES
    }
    report: list[str] = []
    for size, run in runs.items():
        out, err = run.communicate(timeout=240)
        problems = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert run.returncode in (0, 1), f"the audit at {size} broke:\n{err[-3000:]}"
        assert run.returncode == (1 if problems else 0), err[-3000:]
        report += [
            f"{size} [{p['scene']}] {p['kind']}: {p['path']} is {p['size']}, "
            f"needs {p['needs']} {p['detail']}"
            for p in problems
        ]
    assert not report, "\n".join(report)
