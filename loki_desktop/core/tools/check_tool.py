"""The `run_check` native tool: the model asks for a static check of a workspace file."""

from __future__ import annotations

import asyncio
import stat

from pydantic import Field

from loki_desktop.core.checks.model import Checker
from loki_desktop.core.events import CheckReport
from loki_desktop.core.ports import ToolOutcome

# summaries remember their facts: a reopened card is worded in the language of now
from loki_desktop.core.said import _, ngettext
from loki_desktop.core.tools.args import ToolArgs
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTool, fail


class RunCheckArgs(ToolArgs):
    path: str = Field(description="File path, relative to the workspace.")


def run_check_tool(workspace: Workspace, checker: Checker) -> NativeTool:
    """The tool, jailed in `workspace`. Its report travels in ToolOutcome.check_report:
    the agent shows it as a `check` event and appends the problems to the tool result."""

    async def run_check(args: RunCheckArgs) -> ToolOutcome:
        path = workspace.resolve(args.path)
        rel = workspace.relative(path)
        kind = await asyncio.to_thread(_kind_of, workspace, args.path)
        if kind == "missing":
            return fail(
                f"no such file: {args.path}", _("introuvable : {path}").format(path=args.path)
            )
        if kind == "folder":
            return fail(
                f"{args.path} is a folder; give a file",
                _("{path} est un dossier, pas un fichier").format(path=args.path),
            )
        if not checker.can_check(path):
            return ToolOutcome(
                True,
                f"No automatic check exists for {path.suffix or 'extensionless'} files; "
                "only Python, JavaScript, TypeScript (.ts/.tsx/.jsx), HTML, CSS, JSON, TOML, "
                "YAML and shell files are checked.",
                _("{path} : pas de vérification pour ce type de fichier").format(path=rel),
            )
        result = await checker.check(path, workspace.root)
        if result.unreadable:
            return fail(
                f"{rel}: {result.skipped}",
                _("{path} : illisible ({reason})").format(path=rel, reason=result.skipped),
            )
        report = CheckReport(rel, result.ok, result.problems, result.skipped)
        count = len(result.problems)
        summary = (
            _("{path} : aucun problème").format(path=rel)
            if result.ok
            else ngettext("{path} : {n} problème", "{path} : {n} problèmes", count).format(
                path=rel, n=count
            )
        )
        return ToolOutcome(True, f"Checked {rel}.", summary, check_report=report)

    return NativeTool(
        "run_check",
        "Check a workspace file for syntax errors and undefined names without running it "
        "(Python, JavaScript, TypeScript/TSX/JSX, HTML, CSS, JSON, TOML, YAML, shell).",
        RunCheckArgs,
        run_check,
    )


def _kind_of(workspace: Workspace, raw: str) -> str:
    """What `raw` is, looked at from its open folder (the check then reads through the jail)."""
    try:
        with workspace.locate(raw) as entry:
            if entry.name is None:
                return "folder"
            info = entry.folder.lstat(entry.name)
    except FileNotFoundError:
        return "missing"
    if info is None:
        return "missing"
    return "folder" if stat.S_ISDIR(info.st_mode) else "file"
