"""A workspace, an outside folder, and the swaps an attacker makes between two steps."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.checks.registry import Checkers
from loki_desktop.core.tools.check_tool import run_check_tool
from loki_desktop.core.tools.jail import Hook, Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox

SECRET = "SECRET-OUTSIDE"
OUTSIDE_ONLY = "only-outside.txt"


@dataclass
class Scene:
    workspace: Path
    outside: Path

    @classmethod
    def build(cls, base: Path) -> Scene:
        workspace, outside = base / "ws", base / "outside"
        (workspace / "sub").mkdir(parents=True)
        outside.mkdir()
        for folder, text in ((workspace / "sub", "inside\n"), (outside, f"{SECRET}\n")):
            (folder / "file.txt").write_text(text)
            (folder / "data.json").write_text('{"a": 1}\n' if folder != outside else "{oops\n")
        (outside / OUTSIDE_ONLY).write_text(f"{SECRET}\n")
        return cls(workspace, outside)

    def outside_state(self) -> dict[str, str]:
        return {p.name: p.read_text() for p in sorted(self.outside.iterdir())}

    def toolbox(self, hook: Hook | None = None) -> Toolbox:
        jail = Workspace(self.workspace, hook=hook)
        checker = Checkers(read=jail.read_for_check)
        tools = NativeTools(jail, FixedApprover(False), extra_tools=[run_check_tool(jail, checker)])
        return Toolbox([tools])

    # --- what the attacker does -------------------------------------------------------

    def swap_folder(self) -> None:
        """`sub` becomes a link to the outside folder (the real one moves aside, inside)."""
        sub = self.workspace / "sub"
        if sub.is_symlink():
            return
        os.rename(sub, self.workspace / "sub-moved")
        os.symlink(self.outside, sub)

    def swap_file(self) -> None:
        """`sub/file.txt` and `sub/data.json` become links to the outside files."""
        for name in ("file.txt", "data.json"):
            target = self.workspace / "sub" / name
            if target.is_symlink() or not target.parent.is_dir():
                continue
            target.unlink(missing_ok=True)
            os.symlink(self.outside / name, target)
