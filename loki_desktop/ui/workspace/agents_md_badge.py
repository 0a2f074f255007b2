"""The quiet "AGENTS.md" badge: the workspace has one (read into each turn's instructions)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QPushButton

from loki_desktop.core.i18n import _
from loki_desktop.core.instructions import AGENTS_MD, read_agents_md
from loki_desktop.ui.qt_helpers import set_state


class AgentsMdBadge(QPushButton):
    """Shown while the workspace has an AGENTS.md; a click opens it. A file Loki leaves out
    (too big, not UTF-8) shows the reason in the tooltip."""

    def __init__(self) -> None:
        super().__init__(AGENTS_MD)
        self.setObjectName("AgentsMdBadge")
        self.setFlat(True)
        self.path: Path | None = None
        self.clicked.connect(self._open)
        self.hide()

    def refresh(self, root: Path | None) -> None:
        """Read again (only a changed file is: core.instructions keeps the last read)."""
        found = read_agents_md(root) if root is not None else None
        self.path = found.path if found is not None else None
        if found is None:
            self.hide()
            return
        set_state(self, "state", "problem" if found.problem else "")
        self.setToolTip(
            found.problem
            or _("Les instructions du projet (AGENTS.md) vont au modèle à chaque tour.")
        )
        self.show()

    def _open(self) -> None:
        if self.path is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path)))
