"""Child process of the Start and Memory figures: opens a window and says when it is on screen.

    python -m bench.window_probe bare    # a bare PySide6 QMainWindow, the baseline
    python -m bench.window_probe app     # Loki itself, through loki_desktop.app.main([])

Both print `SHOWN <time.time()>` once their main window's first frame is done:
the window's QWindow received its first Expose event and the event loop came back (the
expose paints the whole window and flushes it to the screen before that). Nothing is added
to the app: the probe only swaps MainWindow for a subclass that watches its own QWindow,
so the app's start runs as `loki-desktop` runs it. The app then prints `READY <time>` when
the model list is filled (Ollama answered). The parent measures from its own clock
just before it spawned the process, and ends it with SIGTERM (the app closes cleanly).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QShowEvent, QWindow
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

SIZE = (1240, 820)  # the app's default window size, for the baseline too


class _FirstFrame(QObject):
    """Reports once, after the first Expose of the watched window has been handled."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.done = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            not self.done
            and event.type() == QEvent.Type.Expose
            and isinstance(watched, QWindow)
            and watched.isExposed()
        ):
            self.done = True
            QTimer.singleShot(0, lambda: _report("SHOWN"))
        return False


def _report(what: str) -> None:
    print(f"{what} {time.time():.6f}", flush=True)


def watch_first_frame(widget: QWidget) -> None:
    handle = widget.windowHandle()
    if handle is not None:
        handle.installEventFilter(_FirstFrame(widget))


def run_bare() -> int:
    class Window(QMainWindow):
        def showEvent(self, event: QShowEvent) -> None:
            super().showEvent(event)
            watch_first_frame(self)

    app = QApplication(sys.argv[:1])
    window = Window()
    window.setWindowTitle("bare")
    window.resize(*SIZE)
    window.show()
    return app.exec()


def run_app() -> int:
    from loki_desktop import app
    from loki_desktop.ui import main
    from loki_desktop.ui.window.main_window import MainWindow

    class Window(MainWindow):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            fill = self.model_picker.set_models

            def set_models(
                names: list[str], current: str, profiles: Any = None, **grouping: Any
            ) -> str:
                chosen = fill(names, current, profiles, **grouping)
                if names:
                    _report("READY")
                return chosen

            self.model_picker.set_models = set_models  # type: ignore[method-assign]

        def showEvent(self, event: QShowEvent) -> None:
            super().showEvent(event)
            watch_first_frame(self)

    main.MainWindow = Window  # type: ignore[attr-defined]
    return app.main([])


if __name__ == "__main__":
    sys.exit(run_bare() if sys.argv[1:] == ["bare"] else run_app())
