"""The *Aperçu* button: opens the workspace's preview (core.tools.preview) in the person's
own browser. Shown while the browser server (Playwright) is on and a workspace is open."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QPushButton

from loki_desktop.core.i18n import _
from loki_desktop.ui.qt_helpers import button
from loki_desktop.ui.runtime import Runtime


class PreviewButton:
    """Owns the button; `refresh()` after anything that may start or stop the preview."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.widget: QPushButton = button(_("Aperçu"))
        self.widget.setObjectName("PreviewButton")
        self.widget.clicked.connect(self.open)
        self.widget.hide()

    def refresh(self) -> str | None:
        """Start, move or stop the preview as the settings now say; show the button if on."""
        url = self.runtime.sync_preview()
        self.widget.setVisible(url is not None)
        if url is not None:
            self.widget.setToolTip(
                _(
                    "Ouvre le dossier de travail dans votre navigateur, en lecture seule, à "
                    "l'adresse {url} (celle que le modèle ouvre avec Playwright)."
                ).format(url=url)
            )
        return url

    def open(self) -> None:
        url = self.refresh()
        if url is not None:
            QDesktopServices.openUrl(QUrl(url))
