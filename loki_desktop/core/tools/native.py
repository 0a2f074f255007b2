"""The native tools: files in the jailed workspace, search, and approved shell commands."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import regex
from pydantic import Field

from loki_desktop.core.bounded_read import NotRegularFile
from loki_desktop.core.ports import Approver, ToolOutcome, ToolSpec

# summaries remember their facts: a reopened card is worded in the language of now
from loki_desktop.core.said import _, ngettext
from loki_desktop.core.tools.args import ToolArgs, schema_of, validate_arguments
from loki_desktop.core.tools.debris import sweep_once
from loki_desktop.core.tools.file_writes import ChangedMeanwhile, FileWriter, Planned
from loki_desktop.core.tools.grep import (
    GREP_MAX_FILE_BYTES,
    GREP_TIME_BUDGET_S,
    GrepResult,
    PatternTooSlow,
    Search,
)
from loki_desktop.core.tools.jail import (
    CheckpointRefused,
    JailError,
    Workspace,
    is_forbidden_part,
)
from loki_desktop.core.tools.shell import SHELL_TIMEOUT_S, run_command
from loki_desktop.core.tools.shell_changes import compare, model_note, snapshot
from loki_desktop.core.tools.text import (
    READ_LIMIT_BYTES,
    TOOL_RESULT_CAP,
    NotText,
    cap,
    decode_text,
)

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
    """An error result: `message` (English) for the model, `summary` (translated) for the
    person; without one the card says "error" and its Result shows what the model read."""
    return ToolOutcome(ok=False, output=f"Error: {message}", summary=summary or _("erreur"))


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
        grep_budget_s: float = GREP_TIME_BUDGET_S,
        *,
        review_writes: bool = False,
    ) -> None:
        self.workspace = workspace
        # "Demander avant d'écrire": writes and edits wait for the approver, diff in hand
        self.review_writes = review_writes
        self._writer = FileWriter(workspace) if workspace is not None else None
        self._grep_budget_s = grep_budget_s
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
        if self.workspace is not None:
            # debris of writes killed midway, once per workspace and process, in the background
            sweep_once(self.workspace)
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
            return fail(
                f"{exc}. Use a path inside the workspace.",
                _("chemin refusé (hors du dossier de travail, ou dans .git)"),
            )
        except NotText as exc:
            return fail(str(exc), _("pas un fichier texte (binaire, ou pas en UTF-8)"))
        except NotRegularFile as exc:
            return fail(
                f"{exc.filename} is not a regular file (a pipe, a socket or a device); "
                "only files can be read",
                _("{path} n'est pas un fichier ordinaire").format(path=exc.filename),
            )
        except FileNotFoundError as exc:
            where = exc.filename or exc
            return fail(
                f"no such file or folder: {where}",
                _("introuvable : {path}").format(path=where),
            )
        except IsADirectoryError as exc:
            where = exc.filename or exc
            return fail(
                f"{where} is a folder, not a file",
                _("{path} est un dossier, pas un fichier").format(path=where),
            )
        except NotADirectoryError as exc:
            where = exc.filename or exc
            return fail(
                f"{where} is not a folder", _("{path} n'est pas un dossier").format(path=where)
            )
        except PermissionError as exc:
            where = exc.filename or exc
            return fail(
                f"permission denied: {where}", _("permission refusée : {path}").format(path=where)
            )
        except OSError as exc:
            return fail(
                f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), _("erreur système")
            )

    # --- handlers ---------------------------------------------------------------

    @property
    def _ws(self) -> Workspace:
        assert self.workspace is not None  # file tools exist only with a workspace
        return self.workspace

    @property
    def _files(self) -> FileWriter:
        assert self._writer is not None  # file tools exist only with a workspace
        return self._writer

    async def _read_file(self, args: ReadFileArgs) -> ToolOutcome:
        read, rel = await asyncio.to_thread(
            self._ws.read, args.path, READ_LIMIT_BYTES + 1, count_lines=True
        )
        truncated = len(read.data) > READ_LIMIT_BYTES
        text = decode_text(read.data[:READ_LIMIT_BYTES], truncated, rel)
        lines = read.lines or 0
        body = cap(text, TOOL_RESULT_CAP - 200)
        if truncated and body == text:
            body += "\n[... file cut: only the first part was read ...]"
        summary = ngettext("{path} : {n} ligne", "{path} : {n} lignes", lines)
        return ToolOutcome(True, body, summary.format(path=rel, n=lines))

    async def _write_file(self, args: WriteFileArgs) -> ToolOutcome:
        data = args.content.encode("utf-8")
        planned = await asyncio.to_thread(self._files.plan_write, args.path, data)
        return await self._carry_out(planned)

    async def _edit_file(self, args: EditFileArgs) -> ToolOutcome:
        if not args.old_text:
            return fail(
                "old_text is empty; give the exact text to replace", _("texte à remplacer vide")
            )
        planned = await asyncio.to_thread(
            self._files.plan_edit, args.path, args.old_text, args.new_text
        )
        if isinstance(planned, ToolOutcome):
            return planned
        return await self._carry_out(planned, edit=True)

    async def _carry_out(self, planned: Planned, *, edit: bool = False) -> ToolOutcome:
        """Ask first when the user wants to review writes; then write, the diff in `extra`."""
        rel, change = planned.rel, planned.change
        if self.review_writes and not await self._approver.approve_write(change, self._ws.root):
            return fail(
                f"the user did not approve this change to {rel}; the file was not written. "
                "Do not retry the same change; ask what they want instead.",
                _("refusée par l'utilisateur"),
            )
        try:
            existed = await self._apply(planned)
        except CheckpointRefused as refused:
            return fail(refused.for_model, refused.for_person)
        except ChangedMeanwhile:
            return fail(
                f"{rel} changed on disk before this change could be written (while it "
                "waited for approval, or just then); nothing was written. Read it again "
                "before changing it.",
                _("{path} modifié entre-temps : rien écrit").format(path=rel),
            )
        # the change travels to the card, the history and the turn's checkpoints
        path, size = self._ws.root / rel, len(planned.new)
        if edit:
            edited = _("{path} modifié").format(path=rel)
            return ToolOutcome(True, f"Edited {rel}.", edited, path, change=change)
        verb = "Overwrote" if existed else "Created"
        written = ngettext("{path} écrit ({n} octet)", "{path} écrit ({n} octets)", size)
        return ToolOutcome(
            True,
            f"{verb} {rel} ({size} bytes).",
            written.format(path=rel, n=size),
            path,
            change=change,
        )

    async def _apply(self, planned: Planned) -> bool:
        """Write; when its checkpoint cannot be kept, write only if the person allows this
        one write without a way back (else CheckpointRefused goes up, nothing written)."""
        try:
            return await asyncio.to_thread(self._files.apply, planned)
        except CheckpointRefused as refused:
            allowed = await self._approver.approve_unkept_write(
                refused.rel, refused.for_person, self._ws.root
            )
            if not allowed:
                raise
            refused.allow_once()
            return await asyncio.to_thread(self._files.apply, planned)

    async def _list_dir(self, args: ListDirArgs) -> ToolOutcome:
        rel, entries = await asyncio.to_thread(self._list_entries, args.path)
        if not entries:
            return ToolOutcome(True, f"{rel} is empty.", _("{path} : vide").format(path=rel))
        shown = entries[:LIST_MAX_ENTRIES]
        if len(entries) > LIST_MAX_ENTRIES:
            shown.append(f"[... {len(entries) - LIST_MAX_ENTRIES} more entries not shown ...]")
        summary = ngettext("{path} : {n} entrée", "{path} : {n} entrées", len(entries))
        return ToolOutcome(True, "\n".join(shown), summary.format(path=rel, n=len(entries)))

    def _list_entries(self, raw: str) -> tuple[str, list[str]]:
        with self._ws.open_folder(raw) as entry:
            self._ws.hook("list", entry.rel)
            listed = entry.folder.entries()
            lines = []
            for item in sorted(listed, key=lambda e: (e.kind != "dir", e.name.lower())):
                if is_forbidden_part(item.name):
                    continue
                if item.kind == "dir":
                    lines.append(f"{item.name}/")
                elif item.kind == "link":
                    target = entry.folder.readlink(item.name) or "?"
                    lines.append(f"{item.name} -> {target}  (symbolic link)")
                else:
                    lines.append(f"{item.name}  ({item.size} bytes)")
            return entry.rel, lines

    async def _grep_search(self, args: GrepSearchArgs) -> ToolOutcome:
        try:
            pattern = regex.compile(args.pattern)
        except regex.error as exc:
            return fail(f"invalid regular expression: {exc}", _("expression régulière invalide"))
        search = Search(self._ws, pattern, self._grep_budget_s)
        try:
            result = await asyncio.to_thread(search.run, args.path)
        except PatternTooSlow as slow:
            return fail(
                f"the regular expression took too long (over {search.budget_s:g} s) on "
                f"{slow.where}; simplify it (nested repetition such as (a|aa)+ backtracks "
                "without end) or narrow the path",
                _("expression trop lente"),
            )
        finally:
            search.stop.set()  # cancelled (Stop): the worker thread ends at its next step
        return grep_outcome(args.pattern, result)

    async def _run_shell(self, args: RunShellArgs) -> ToolOutcome:
        command = args.command.strip()
        if not command:
            return fail("the command is empty", _("commande vide"))
        if not await self._approver.approve_shell(command, self._ws.root):
            return fail(
                "the user did not approve this command; it was not run. "
                "Do not retry it; explain what you wanted to do instead.",
                _("refusée par l'utilisateur"),
            )
        before = await asyncio.to_thread(snapshot, self._ws.root)
        result = await run_command(command, self._ws.root)
        changed = compare(before, await asyncio.to_thread(snapshot, self._ws.root))
        if result.timed_out:
            status = f"killed after {SHELL_TIMEOUT_S:g} s (timeout)"
            shown = _("arrêtée après {n} s (délai dépassé)").format(n=f"{SHELL_TIMEOUT_S:g}")
        else:
            status = f"exit code {result.exit_code}"
            shown = _("code de sortie {code}").format(code=result.exit_code)
        body = result.output if result.output else "(no output)"
        if result.truncated:
            body += "\n[... output cut ...]"
        if result.stopped_children:
            body += (
                "\n[background processes still writing to the output were stopped when the "
                "command ended; redirect their output (cmd > file 2>&1 &) to keep them running]"
            )
        ok = not result.timed_out and result.exit_code == 0
        output = cap(f"{status}\n{body}", TOOL_RESULT_CAP - 2000) + model_note(changed)
        return ToolOutcome(ok, output, shown, shell_changes=tuple(changed))


def grep_outcome(pattern: str, result: GrepResult) -> ToolOutcome:
    big = result.skipped_big
    limit = f"{GREP_MAX_FILE_BYTES // 1_000_000} MB"
    if result.single_file and big:
        return fail(
            f"{big[0]} was not searched: it is larger than {limit}, grep_search's limit. "
            "Read parts of it with read_file, or search a smaller file.",
            _("{path} ignoré (plus de {limit})").format(path=big[0], limit=limit),
        )
    note = result.note
    if big:
        shown = ", ".join(big[:5]) + (", ..." if len(big) > 5 else "")
        note += f"\n[{len(big)} file(s) over {limit} not searched: {shown}]"
    matches = result.matches
    if not matches:
        return ToolOutcome(True, f"No match for {pattern!r}.{note}", _("aucun résultat"))
    summary = ngettext("{n} résultat", "{n} résultats", len(matches)).format(n=len(matches))
    return ToolOutcome(True, "\n".join(matches) + note, summary)
