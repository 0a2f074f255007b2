"""The Problems panel: what the workspace watcher's checks found, file by file."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.ui.qt_helpers import button, label

if TYPE_CHECKING:
    from loki_desktop.core.watch import WorkspaceWatcher

log = logging.getLogger(__name__)

PATH_ROLE = Qt.ItemDataRole.UserRole
MAX_IN_MESSAGE = 40  # problems quoted in one "fix" message; the model reads the files anyway


class ProblemsPanel(QFrame):
    """Lists problems (file, line, message); double-click opens the file, one button asks Loki."""

    fix_requested = Signal(str)
    count_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ProblemsPanel")
        self.root: Path | None = None
        self.watching = False
        self.failure = ""
        self._problems: dict[Path, list[tuple[int, int, str]]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(6)
        head = QHBoxLayout()
        self.title = label(_("PROBLÈMES"), "PanelTitle")
        head.addWidget(self.title)
        self.status = label("", "CardDetail", wrap=True)  # no minimum width from its sentence
        head.addWidget(self.status, 1)
        self.fix_button = button(_("Demander à Loki de corriger"), primary=True)
        self.fix_button.setEnabled(False)
        self.fix_button.clicked.connect(self._ask_fix)
        head.addWidget(self.fix_button)
        layout.addLayout(head)
        self.tree = QTreeWidget()
        self.tree.setObjectName("ProblemsList")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels([_("Fichier"), _("Ligne"), _("Message")])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 220)
        self.tree.itemDoubleClicked.connect(self._open)
        layout.addWidget(self.tree, 1)
        self._show_status()

    # --- content --------------------------------------------------------------------

    def set_root(self, root: Path | None, *, watching: bool = False, failure: str = "") -> None:
        self.root = root
        self.watching = watching
        self.failure = failure
        self.clear()

    def clear(self) -> None:
        self._problems.clear()
        self._refill()

    def set_file_problems(self, path: Path, problems: Sequence[tuple[int, int, str]]) -> None:
        """Replace what is known of one file (an empty list: the file is clean now)."""
        if problems:
            self._problems[path] = list(problems)
        else:
            self._problems.pop(path, None)
        self._refill()

    def forget(self, path: Path) -> None:
        if self._problems.pop(path, None) is not None:
            self._refill()

    def count(self) -> int:
        return sum(len(found) for found in self._problems.values())

    def rows(self) -> list[tuple[str, int, str]]:
        rows = []
        for index in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(index)
            assert item is not None
            rows.append((item.text(0), int(item.text(1)), item.text(2)))
        return rows

    def message_for_loki(self) -> str:
        """The message "Ask Loki to fix" sends: every problem, one per line."""
        lines = []
        for path in sorted(self._problems):
            for line, col, message in self._problems[path]:
                lines.append(f"- {self._shown(path)}:{line}:{col} : {message}")
        more = len(lines) - MAX_IN_MESSAGE
        text = "\n".join(lines[:MAX_IN_MESSAGE])
        if more > 0:
            text += "\n" + _("… et {n} autres.").format(n=more)
        return _(
            "La vérification automatique signale ces problèmes dans le dossier de travail. "
            "Lis les fichiers concernés et corrige-les :\n{problems}"
        ).format(problems=text)

    # --- inside ---------------------------------------------------------------------

    def _shown(self, path: Path) -> str:
        if self.root is not None and path.is_relative_to(self.root):
            return path.relative_to(self.root).as_posix()
        return str(path)

    def _refill(self) -> None:
        self.tree.clear()
        for path in sorted(self._problems):
            for line, _col, message in self._problems[path]:
                item = QTreeWidgetItem([self._shown(path), str(line), message])
                item.setData(0, PATH_ROLE, str(path))
                item.setToolTip(2, message)
                item.setToolTip(0, str(path))
                self.tree.addTopLevelItem(item)
        self._show_status()
        self.count_changed.emit(self.count())

    def _show_status(self) -> None:
        count = self.count()
        files = len(self._problems)
        if self.root is None:
            self.status.setText(_("Choisissez un dossier de travail pour le surveiller."))
        elif self.failure:
            self.status.setText(_("Surveillance impossible : {reason}").format(reason=self.failure))
        elif not self.watching:
            self.status.setText(_("Vérification automatique désactivée (Réglages › Intelligence)."))
        elif count == 0:
            self.status.setText(_("Aucun problème dans le dossier surveillé."))
        else:
            self.status.setText(
                ngettext(
                    "{count} problème dans {files}", "{count} problèmes dans {files}", count
                ).format(
                    count=count,
                    files=ngettext("{n} fichier", "{n} fichiers", files).format(n=files),
                )
            )
        self.fix_button.setEnabled(count > 0)

    def _open(self, item: QTreeWidgetItem, _column: int) -> None:
        path = item.data(0, PATH_ROLE)
        if path:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def _ask_fix(self) -> None:
        if self.count():
            self.fix_requested.emit(self.message_for_loki())


class ProblemsFeed:
    """Runs the workspace watcher (core.watch) and feeds what it finds to the panel."""

    def __init__(self, panel: ProblemsPanel) -> None:
        self.panel = panel
        self.watcher: WorkspaceWatcher | None = None
        self._lock = asyncio.Lock()  # one workspace change at a time
        # told of every changed path (the workspace's index); set by the workspace room
        self.on_file_changed: Callable[[Path], None] | None = None

    async def watch(self, root: Path | None, *, enabled: bool) -> None:
        """Stop watching the old folder; watch `root` when there is one and checks are on."""
        async with self._lock:
            await self._stop()
            if root is None or not enabled:
                self.panel.set_root(root, watching=False)
                return
            # imported here, after the window is shown (watchfiles and the checkers: ~50 ms)
            from loki_desktop.core.checks.registry import Checkers
            from loki_desktop.core.watch import WorkspaceWatcher

            watcher = WorkspaceWatcher(
                root, Checkers(), self._on_problems, on_change=self.on_file_changed
            )
            try:
                await watcher.start()
            except OSError as exc:  # e.g. the system's limit of inotify watches
                log.warning("cannot watch %s: %s", root, exc)
                self.panel.set_root(root, failure=exc.strerror or str(exc))
                return
            self.watcher = watcher
            # the watcher reports resolved paths: a workspace reached through a symlink
            # must still show them relative to it
            self.panel.set_root(watcher.root, watching=True)

    async def stop(self) -> None:
        async with self._lock:
            await self._stop()

    async def _stop(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            await watcher.stop()

    def _on_problems(self, path: Path, result: CheckResult | None) -> None:
        if self.watcher is None:
            return  # a late report from a folder no longer watched
        if result is None:
            self.panel.forget(path)
        else:
            self.panel.set_file_problems(
                path, [(p.line, p.col, p.message) for p in result.problems]
            )
