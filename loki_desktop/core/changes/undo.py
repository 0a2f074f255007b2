"""Taking a turn's file changes back (undo) and putting them again (redo), file by file.

Each file goes back through the workspace jail with an atomic write (temporary file, then
rename), so a kill -9 in the middle of an undo leaves every file wholly old or wholly new.
A file that changed since the turn (by the person, or a later turn) is not overwritten
unless `decide` says so: the window asks per file, the CLI leaves it (or --force).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from loki_desktop.core.changes.counts import Kind, kind_of
from loki_desktop.core.changes.recorder import digest_of
from loki_desktop.core.ports import NOT_KEPT, CheckpointStore, TurnCheckpoint
from loki_desktop.core.tools.jail import JailError, Workspace

Direction = Literal["undo", "redo"]
# The state of a path that is a folder (or another thing that cannot be read as a file).
NOT_A_FILE = "not-a-file"
# Files written at once by an undo (their fsyncs overlap).
WRITERS = 8


@dataclass(frozen=True, slots=True)
class FileStep:
    """One file to put back: from `current` to `target`, expected to be at `expected`."""

    path: str
    kind: Kind  # what the turn did to it
    target: str | None  # the state to put back (a digest; None: the file must not exist)
    expected: str | None  # the state it should be in now (what the turn, or the undo, left)
    current: str | None  # the state it is in now

    @property
    def changed_since(self) -> bool:
        return self.current != self.expected and self.current != self.target

    @property
    def kept(self) -> bool:
        return self.target != NOT_KEPT


@dataclass(frozen=True, slots=True)
class UndoPlan:
    conversation_id: str
    turn: int
    direction: Direction
    workspace: Path
    steps: tuple[FileStep, ...]

    @property
    def conflicts(self) -> list[FileStep]:
        return [step for step in self.steps if step.changed_since and step.kept]


@dataclass
class UndoReport:
    restored: list[FileStep] = field(default_factory=list)
    left: list[FileStep] = field(default_factory=list)  # changed since, not overwritten
    failed: list[tuple[FileStep, str]] = field(default_factory=list)  # path, why (a person's)

    @property
    def complete(self) -> bool:
        return not self.left and not self.failed


Decide = Callable[[FileStep], bool]


class UndoRefused(Exception):
    """Nothing to undo or redo there (the message is one sentence for a person)."""


def pick_turn(
    store: CheckpointStore, conversation_id: str, turn: int | None, direction: Direction
) -> TurnCheckpoint:
    """The turn to undo (the last one with changes still applied) or to redo (the last one
    undone); `turn` picks one by number. Raises UndoRefused."""
    from loki_desktop.core.i18n import _

    turns = store.turns(conversation_id)
    if turn is not None:
        found = next((t for t in turns if t.turn == turn), None)
        if found is None:
            raise UndoRefused(
                _(
                    "Le tour {turn} n'a modifié aucun fichier (ou ses points de restauration ont "
                    "été supprimés)."
                ).format(turn=turn)
            )
        return found
    undoing = direction == "undo"
    candidates = [t for t in turns if any(f.restored != undoing for f in t.files)]
    if not candidates:
        if undoing:
            raise UndoRefused(
                _("Aucune modification de fichier à annuler dans cette conversation.")
            )
        raise UndoRefused(_("Aucune annulation à rétablir dans cette conversation."))
    return candidates[-1]


def plan(turn: TurnCheckpoint, direction: Direction) -> UndoPlan:
    """What undoing (or redoing) `turn` would do to each file, as the files are now."""
    workspace = Workspace(turn.workspace)
    steps = []
    for change in turn.files:
        if change.restored == (direction == "undo"):
            continue  # already in the state asked for
        target, expected = (
            (change.before, change.after) if direction == "undo" else (change.after, change.before)
        )
        steps.append(
            FileStep(change.path, kind_of(change), target, expected, _state(workspace, change.path))
        )
    return UndoPlan(turn.conversation_id, turn.turn, direction, workspace.root, tuple(steps))


def apply(store: CheckpointStore, undo: UndoPlan, decide: Decide | None = None) -> UndoReport:
    """Put each file of the plan back; a file changed since only when `decide` says so.

    The files are written by a few threads at once: each write waits on its own fsync, and
    those waits overlap (a 100-file undo takes a third of the time, see bench/).
    """
    workspace = Workspace(undo.workspace)  # no observer: an undo is no turn's change
    report = UndoReport()
    chosen: list[FileStep] = []
    for step in undo.steps:
        if not step.kept:
            report.failed.append((step, _not_kept()))
        elif step.changed_since and not (decide is not None and decide(step)):
            report.left.append(step)
        else:
            chosen.append(step)
    with ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="loki-undo") as pool:
        outcomes = list(pool.map(lambda step: _put_safely(store, workspace, step), chosen))
    for step, failure in zip(chosen, outcomes, strict=True):
        if failure is not None:
            report.failed.append((step, failure))
            continue
        store.set_restored(undo.conversation_id, undo.turn, step.path, undo.direction == "undo")
        report.restored.append(step)
    return report


class _Damaged(ValueError):
    """The checkpoint's bytes are gone or are not the ones kept."""


def _put_safely(store: CheckpointStore, workspace: Workspace, step: FileStep) -> str | None:
    """None when the file is back, else why not (one phrase for a person)."""
    try:
        _put(store, workspace, step)
    except (OSError, JailError, ValueError) as exc:
        return _why(exc)
    return None


def _put(store: CheckpointStore, workspace: Workspace, step: FileStep) -> None:
    from loki_desktop.core.i18n import _

    if step.current == step.target:
        return  # already there (put back by hand, or an undo killed after this file)
    if step.target is None:
        with workspace.locate(step.path) as entry:
            workspace.remove(entry)
        return
    try:
        data = store.read_blob(step.target)
    except OSError:
        raise _Damaged(_("son point de restauration a disparu")) from None
    if digest_of(data) != step.target:
        raise _Damaged(_("son point de restauration est abîmé (les octets gardés ont changé)"))
    with workspace.locate(step.path, create=True) as entry:
        workspace.write(entry, data)


def _why(exc: Exception) -> str:
    """Why a file could not be put back, in the person's language."""
    from loki_desktop.core.i18n import _

    if isinstance(exc, _Damaged):
        return str(exc)
    if isinstance(exc, JailError):
        return _("chemin refusé (hors du dossier de travail, ou dans .git)")
    if isinstance(exc, IsADirectoryError):
        return _("c'est un dossier, pas un fichier")
    if isinstance(exc, NotADirectoryError):
        return _("un dossier du chemin est un fichier")
    if isinstance(exc, FileNotFoundError):
        return _("introuvable")
    if isinstance(exc, PermissionError):
        return _("permission refusée")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return _("plus de place sur le disque")
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return _("disque en lecture seule")
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


def _not_kept() -> str:
    from loki_desktop.core.i18n import _

    return _("son état d'avant n'a pas été gardé (écrit sans retour possible)")


def _state(workspace: Workspace, rel: str) -> str | None:
    try:
        read, _rel = workspace.read(rel, 1 << 62)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return None
        return NOT_A_FILE
    except (JailError, ValueError):
        return NOT_A_FILE
    return digest_of(read.data)
