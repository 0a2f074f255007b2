"""The native tools: files in the jailed workspace, search, and approved shell commands."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# `regex`, not `re`: a search can be given a timeout, and it lets go of the GIL while it
# runs, so a pattern that backtracks without end cannot freeze the app
import regex
from pydantic import Field

from loki_desktop.core.checks.tree import is_ignored_dir
from loki_desktop.core.files import atomic_write
from loki_desktop.core.ports import Approver, ToolOutcome, ToolSpec
from loki_desktop.core.tools.args import ToolArgs, schema_of, validate_arguments
from loki_desktop.core.tools.jail import JailError, Workspace, is_forbidden_part
from loki_desktop.core.tools.shell import SHELL_TIMEOUT_S, run_command
from loki_desktop.core.tools.text import TOOL_RESULT_CAP, NotText, cap, looks_binary, read_text

GREP_MAX_MATCHES = 200
GREP_MAX_FILE_BYTES = 2_000_000
GREP_TIME_BUDGET_S = 5.0
LIST_MAX_ENTRIES = 500


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File path, relative to the workspace.")


class WriteFileArgs(ToolArgs):
    path: str = Field(description="File path, relative to the workspace.")
    content: str = Field(description="The whole new content of the file.")


class EditFileArgs(ToolArgs):
    path: str = Field(description="File path, relative to the workspace.")
    old_text: str = Field(description="Exact text to replace; must occur exactly once.")
    new_text: str = Field(description="Replacement text.")


class ListDirArgs(ToolArgs):
    path: str = Field(default=".", description="Folder, relative to the workspace.")


class GrepSearchArgs(ToolArgs):
    pattern: str = Field(description="Python regular expression.")
    path: str = Field(default=".", description="File or folder to search in.")


class RunShellArgs(ToolArgs):
    command: str = Field(description="Shell command, run in the workspace folder.")


Handler = Callable[[Any], Awaitable[ToolOutcome]]


@dataclass(frozen=True, slots=True)
class NativeTool:
    name: str
    description: str
    args_model: type[ToolArgs]
    handler: Handler

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, schema_of(self.args_model), "native")


def fail(message: str, summary: str | None = None) -> ToolOutcome:
    return ToolOutcome(ok=False, output=f"Error: {message}", summary=summary or message)


class _PatternTooSlow(Exception):
    """The pattern ran out of the search's time on one line (catastrophic backtracking)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class NativeTools:
    """The file and shell tools, all jailed in one workspace.

    With no workspace there are no file tools at all: the model is not offered
    tools it cannot use.
    """

    def __init__(
        self,
        workspace: Workspace | None,
        approver: Approver,
        extra_tools: list[NativeTool] | None = None,
    ) -> None:
        self.workspace = workspace
        self._approver = approver
        self._tools: dict[str, NativeTool] = {}
        if workspace is not None:
            for tool in self._file_tools() + (extra_tools or []):
                self._tools[tool.name] = tool

    def _file_tools(self) -> list[NativeTool]:
        return [
            NativeTool(
                "read_file", "Read a text file of the workspace.", ReadFileArgs, self._read_file
            ),
            NativeTool(
                "write_file",
                "Create or overwrite a file of the workspace with the given content.",
                WriteFileArgs,
                self._write_file,
            ),
            NativeTool(
                "edit_file",
                "Replace one exact occurrence of old_text by new_text in a file.",
                EditFileArgs,
                self._edit_file,
            ),
            NativeTool(
                "list_dir",
                "List the files and folders of a workspace folder.",
                ListDirArgs,
                self._list_dir,
            ),
            NativeTool(
                "grep_search",
                "Search workspace files for a regular expression; returns path:line: text.",
                GrepSearchArgs,
                self._grep_search,
            ),
            NativeTool(
                "run_shell",
                "Run a shell command in the workspace folder (the user must approve it).",
                RunShellArgs,
                self._run_shell,
            ),
        ]

    # --- ToolSource -------------------------------------------------------------

    async def prepare(self) -> list[str]:
        return []

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self._tools.values()]

    def owns(self, name: str) -> bool:
        return name in self._tools

    async def call(self, name: str, args: dict[str, Any]) -> ToolOutcome:
        tool = self._tools[name]
        parsed = validate_arguments(tool.args_model, args)
        try:
            return await tool.handler(parsed)
        except JailError as exc:
            return fail(f"{exc}. Use a path inside the workspace.", f"refusé : {exc}")
        except NotText as exc:
            return fail(str(exc))
        except FileNotFoundError as exc:
            return fail(f"no such file or folder: {exc.filename or exc}")
        except IsADirectoryError as exc:
            return fail(f"{exc.filename or exc} is a folder, not a file")
        except NotADirectoryError as exc:
            return fail(f"{exc.filename or exc} is not a folder")
        except PermissionError as exc:
            return fail(f"permission denied: {exc.filename or exc}")
        except OSError as exc:
            return fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))

    # --- handlers ---------------------------------------------------------------

    @property
    def _ws(self) -> Workspace:
        assert self.workspace is not None  # file tools exist only with a workspace
        return self.workspace

    async def _read_file(self, args: ReadFileArgs) -> ToolOutcome:
        path = self._ws.resolve(args.path)
        text, truncated = await asyncio.to_thread(read_text, path)
        rel = self._ws.relative(path)
        lines = text.count("\n") + (not text.endswith("\n") and bool(text))
        body = cap(text, TOOL_RESULT_CAP - 200)
        if truncated and body == text:
            body += "\n[... file cut: only the first part was read ...]"
        return ToolOutcome(True, body, f"{rel} : {lines} lignes")

    async def _write_file(self, args: WriteFileArgs) -> ToolOutcome:
        path = self._ws.resolve(args.path)
        if path.is_dir():
            return fail(f"{args.path} is a folder")
        existed = path.exists()
        data = args.content.encode("utf-8")
        await asyncio.to_thread(atomic_write, path, data)
        rel = self._ws.relative(path)
        verb = "Overwrote" if existed else "Created"
        return ToolOutcome(
            True,
            f"{verb} {rel} ({len(data)} bytes).",
            f"{rel} écrit ({len(data)} octets)",
            changed_path=path,
        )

    async def _edit_file(self, args: EditFileArgs) -> ToolOutcome:
        path = self._ws.resolve(args.path)
        if not args.old_text:
            return fail("old_text is empty; give the exact text to replace")
        text, truncated = await asyncio.to_thread(read_text, path)
        if truncated:
            return fail(f"{args.path} is too large to edit safely; rewrite it with write_file")
        count = text.count(args.old_text)
        if count != 1:
            where = "was not found" if count == 0 else f"matched {count} times"
            return fail(
                f"old_text {where} in {args.path}; it must match exactly once "
                "(copy it exactly, with more surrounding lines if needed)",
                f"old_text trouvé {count} fois",
            )
        new_text = text.replace(args.old_text, args.new_text, 1)
        await asyncio.to_thread(atomic_write, path, new_text.encode("utf-8"))
        rel = self._ws.relative(path)
        return ToolOutcome(True, f"Edited {rel}.", f"{rel} modifié", changed_path=path)

    async def _list_dir(self, args: ListDirArgs) -> ToolOutcome:
        folder = self._ws.resolve(args.path)
        entries = await asyncio.to_thread(self._list_entries, folder)
        rel = self._ws.relative(folder)
        if not entries:
            return ToolOutcome(True, f"{rel} is empty.", f"{rel} : vide")
        shown = entries[:LIST_MAX_ENTRIES]
        if len(entries) > LIST_MAX_ENTRIES:
            shown.append(f"[... {len(entries) - LIST_MAX_ENTRIES} more entries not shown ...]")
        return ToolOutcome(True, "\n".join(shown), f"{rel} : {len(entries)} entrées")

    @staticmethod
    def _list_entries(folder: Path) -> list[str]:
        lines = []
        with os.scandir(folder) as scan:
            for entry in sorted(scan, key=lambda e: (not e.is_dir(), e.name.lower())):
                if is_forbidden_part(entry.name):
                    continue
                if entry.is_dir():
                    lines.append(f"{entry.name}/")
                else:
                    try:
                        size = entry.stat().st_size
                    except OSError:
                        size = 0
                    lines.append(f"{entry.name}  ({size} bytes)")
        return lines

    async def _grep_search(self, args: GrepSearchArgs) -> ToolOutcome:
        try:
            pattern = regex.compile(args.pattern)
        except regex.error as exc:
            return fail(f"invalid regular expression: {exc}")
        start = self._ws.resolve(args.path)
        try:
            matches, note = await asyncio.to_thread(self._grep, pattern, start)
        except _PatternTooSlow as slow:
            return fail(
                f"the regular expression took too long (over {GREP_TIME_BUDGET_S:g} s) on "
                f"{slow.where}; simplify it (nested repetition such as (a|aa)+ backtracks "
                "without end) or narrow the path",
                "expression trop lente",
            )
        if not matches:
            return ToolOutcome(True, f"No match for {args.pattern!r}.{note}", "aucun résultat")
        summary = f"{len(matches)} résultat{'s' if len(matches) > 1 else ''}"
        return ToolOutcome(True, "\n".join(matches) + note, summary)

    def _grep(self, pattern: regex.Pattern[str], start: Path) -> tuple[list[str], str]:
        matches: list[str] = []
        deadline = time.monotonic() + GREP_TIME_BUDGET_S
        for path in self._walk_files(start):
            if time.monotonic() > deadline:
                return matches, _stopped_note()
            try:
                if path.stat().st_size > GREP_MAX_FILE_BYTES:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if looks_binary(data):
                continue
            text = data.decode("utf-8", errors="replace")
            rel = self._ws.relative(path)
            for number, line in enumerate(text.splitlines(), 1):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return matches, _stopped_note()
                try:
                    found = pattern.search(line, timeout=remaining, concurrent=True)
                except TimeoutError:
                    raise _PatternTooSlow(f"{rel}:{number}") from None
                if found:
                    matches.append(f"{rel}:{number}: {line.strip()[:300]}")
                    if len(matches) >= GREP_MAX_MATCHES:
                        return matches, f"\n[... stopped at {GREP_MAX_MATCHES} matches ...]"
        return matches, ""

    def _walk_files(self, start: Path) -> list[Path]:
        if start.is_file():
            return [start]
        files: list[Path] = []
        for folder, dirs, names in os.walk(start):
            dirs[:] = sorted(d for d in dirs if not (is_ignored_dir(d) or is_forbidden_part(d)))
            for name in sorted(names):
                path = Path(folder, name)
                if not path.is_file():  # a FIFO would block the search; a socket, a device
                    continue
                # a symlink may lead out of the jail: search only what resolves inside
                if path.is_symlink():
                    try:
                        self._ws.resolve(str(path))
                    except JailError:
                        continue
                files.append(path)
        return files

    async def _run_shell(self, args: RunShellArgs) -> ToolOutcome:
        command = args.command.strip()
        if not command:
            return fail("the command is empty")
        if not await self._approver.approve_shell(command, self._ws.root):
            return fail(
                "the user did not approve this command; it was not run. "
                "Do not retry it; explain what you wanted to do instead.",
                "refusée par l'utilisateur",
            )
        result = await run_command(command, self._ws.root)
        if result.timed_out:
            status = f"killed after {SHELL_TIMEOUT_S:g} s (timeout)"
        else:
            status = f"exit code {result.exit_code}"
        body = result.output if result.output else "(no output)"
        if result.truncated:
            body += "\n[... output cut ...]"
        if result.stopped_children:
            body += (
                "\n[background processes still writing to the output were stopped when the "
                "command ended; redirect their output (cmd > file 2>&1 &) to keep them running]"
            )
        ok = not result.timed_out and result.exit_code == 0
        return ToolOutcome(ok, cap(f"{status}\n{body}"), status)


def _stopped_note() -> str:
    return f"\n[... search stopped after {GREP_TIME_BUDGET_S:g} s: narrow the path ...]"
