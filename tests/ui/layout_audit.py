"""The layout audit: every window, page, dialog and card at a screen size, checked widget by widget.

Run on one screen size a process (Qt's offscreen platform with that one screen):

    .venv/bin/python -m tests.ui.layout_audit 1024x640 [--language fr] [--scene settings]

It prints one line per problem: the scene, the widget's path (object names, else class
names), its size, what it needs, and why. tests/ui/test_layout_audit.py runs it at
1024×640, 1280×800 and 800×560 in French and English and fails on any line.

A problem is a visible widget:
- smaller than its minimum (`minimumSizeHint()`, or the minimum it was given; the height a
  word-wrapped text needs at its width) — `squeezed`;
- overlapping a visible sibling — `overlap`;
- outside its parent (where nothing scrolls to it) or outside the screen — `outside`;
- a button whose text is cut or empty — `button`.

Scenes live in tests/ui/audit_scenes.py: add a card kind, a page or a dialog there (one
function under `@scene(...)`), and the audit checks it at every size in both languages.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QScrollArea,
    QScrollBar,
    QSizePolicy,
    QStackedWidget,
    QWidget,
)

SIZES = ("1024x640", "1280x800", "800x560")

# Widgets that are meant to lie over others, each with its reason (no exclusion without one).
OVERLAYS: dict[str, str] = {
    "QSplitterHandle": "Qt widens a thin splitter handle over its neighbours, to be grabbed",
    "QSizeGrip": "Qt's resize grip sits in a dialog's corner, over what is there (QFileDialog)",
}


@dataclass(frozen=True)
class Problem:
    scene: str
    kind: str  # squeezed, overlap, outside, button
    path: str
    size: str
    needs: str
    detail: str = ""

    def __str__(self) -> str:
        extra = f" — {self.detail}" if self.detail else ""
        return f"[{self.scene}] {self.kind}: {self.path} is {self.size}, needs {self.needs}{extra}"


def path_of(widget: QWidget, top: QWidget) -> str:
    """`SettingsDialog > QStackedWidget > GeneralPage > QLineEdit#host`: names a person finds."""
    parts = []
    current: QWidget | None = widget
    while current is not None:
        name = type(current).__name__
        if current.objectName() and not current.objectName().startswith("qt_"):
            name += f"#{current.objectName()}"
        text = _text_of(current)
        if text:
            name += f"[{text[:32]}]"
        parts.append(name)
        if current is top:
            break
        current = current.parentWidget()
    return " > ".join(reversed(parts))


def _text_of(widget: QWidget) -> str:
    if isinstance(widget, QAbstractButton | QLabel):
        return widget.text().replace("\n", " ")
    return ""


def _size(size: QSize) -> str:
    return f"{size.width()}×{size.height()}"


def children(widget: QWidget) -> list[QWidget]:
    """The visible child widgets a person sees as separate things (not a combo box's or a
    scroll area's own parts: Qt lays those out)."""
    if isinstance(widget, QComboBox | QAbstractSpinBox | QAbstractItemView | QScrollBar):
        return []
    if isinstance(widget, QAbstractScrollArea):
        inner = widget.widget() if isinstance(widget, QScrollArea) else None
        return [inner] if inner is not None and inner.isVisible() else []
    found = [
        child
        for child in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if child.isVisible() and not child.isWindow()
    ]
    return found


def walk(top: QWidget) -> Iterator[tuple[QWidget, bool]]:
    """Every visible widget under `top`, with whether a scroll area holds it (it can be
    scrolled to, so it may lie beyond its viewport)."""
    stack: list[tuple[QWidget, bool]] = [(top, False)]
    while stack:
        widget, scrolled = stack.pop()
        yield widget, scrolled
        inside = scrolled or isinstance(widget, QScrollArea)
        stack.extend((child, inside) for child in reversed(children(widget)))


def needed(widget: QWidget) -> QSize:
    """The size below which `widget` is squeezed: what Qt's layouts would give it at least."""
    hint = widget.minimumSizeHint()
    given = widget.minimumSize()
    policy = widget.sizePolicy()
    width = _dimension(given.width(), hint.width(), policy.horizontalPolicy())
    height = _dimension(given.height(), hint.height(), policy.verticalPolicy())
    if widget.hasHeightForWidth() and widget.width() > 0:
        wrapped = _minimum_height_for(widget)
        height = max(given.height(), wrapped) if wrapped > 0 else height
    return QSize(width, height)


def _minimum_height_for(widget: QWidget) -> int:
    """The least height `widget` can have at its width when a text in it wraps (its
    minimumSizeHint is the height at its narrowest, where the text takes the most lines)."""
    layout = widget.layout()
    if layout is None:
        return widget.heightForWidth(widget.width())  # a wrapped label: no less than its lines
    margins = widget.contentsMargins()
    inner = widget.width() - margins.left() - margins.right()
    return layout.minimumHeightForWidth(inner) + margins.top() + margins.bottom()


def _dimension(given: int, hint: int, policy: QSizePolicy.Policy) -> int:
    if given > 0:
        return given
    if policy == QSizePolicy.Policy.Ignored:  # designed to take any size (an elided label)
        return 0
    return max(hint, 0)


def check_widget(widget: QWidget, scene: str, top: QWidget) -> list[Problem]:
    found = []
    need = needed(widget)
    if widget.width() < need.width() or widget.height() < need.height():
        found.append(
            Problem(scene, "squeezed", path_of(widget, top), _size(widget.size()), _size(need))
        )
    if isinstance(widget, QAbstractButton):
        found.extend(_button(widget, scene, top))
    if isinstance(widget, QLabel):
        found.extend(_label(widget, scene, top))
    if isinstance(widget, QScrollArea) and widget.horizontalScrollBar().isVisible():
        inner = widget.widget()
        wide = _size(inner.minimumSizeHint()) if inner is not None else "?"
        found.append(
            Problem(
                scene,
                "sideways",
                path_of(widget, top),
                _size(widget.size()),
                wide,
                "a page that scrolls sideways: a long text sets its width",
            )
        )
    return found


def _button(widget: QAbstractButton, scene: str, top: QWidget) -> list[Problem]:
    path = path_of(widget, top)
    if not widget.text().strip() and widget.icon().isNull():
        return [Problem(scene, "button", path, _size(widget.size()), "a text", "empty")]
    hint = widget.sizeHint()  # the whole text (or icon), with the style's padding
    if widget.width() < hint.width() or widget.height() < hint.height():
        what = "text cut" if widget.text() else "icon cut"  # a blank square, once styled
        return [Problem(scene, "button", path, _size(widget.size()), _size(hint), what)]
    return []


def _label(widget: QLabel, scene: str, top: QWidget) -> list[Problem]:
    """A label with a text that shows none of it (elided to "…", or given no width)."""
    full = str(getattr(widget, "full_text", widget.text())).strip()
    if not full or not widget.pixmap().isNull():
        return []
    shown = widget.text().strip()
    least = 3 * widget.fontMetrics().averageCharWidth()
    if shown in ("", "…") or widget.width() < min(least, widget.sizeHint().width()):
        where = path_of(widget, top)
        return [Problem(scene, "label", where, _size(widget.size()), "a width", "shows nothing")]
    return []


def check_siblings(parent: QWidget, scene: str, top: QWidget) -> list[Problem]:
    if isinstance(parent, QStackedWidget):
        return []
    shown = [c for c in children(parent) if _overlay(c) is None]
    found = []
    area = parent.rect()
    for index, first in enumerate(shown):
        if not isinstance(parent, QScrollArea) and not area.contains(first.geometry()):
            spill = f"{_rect(first.geometry())} in {_size(area.size())}"
            found.append(Problem(scene, "outside", path_of(first, top), spill, "its parent"))
        for second in shown[index + 1 :]:
            common = first.geometry().intersected(second.geometry())
            if common.width() > 0 and common.height() > 0:
                found.append(
                    Problem(
                        scene,
                        "overlap",
                        path_of(first, top),
                        _rect(first.geometry()),
                        "room of its own",
                        f"{_rect(common)} shared with {path_of(second, top)}",
                    )
                )
    return found


def _overlay(widget: QWidget) -> str | None:
    """Why `widget` may lie over its siblings (None: it may not)."""
    return OVERLAYS.get(widget.objectName()) or OVERLAYS.get(type(widget).__name__)


def _rect(rect: QRect) -> str:
    return f"{rect.width()}×{rect.height()}+{rect.x()}+{rect.y()}"


def check_screen(top: QWidget, scene: str) -> list[Problem]:
    screen = (top.screen() or QApplication.primaryScreen()).availableGeometry()
    frame = top.frameGeometry()
    if screen.contains(frame):
        return []
    return [
        Problem(scene, "outside", path_of(top, top), _rect(frame), f"the screen {_rect(screen)}")
    ]


def audit(top: QWidget, scene: str) -> list[Problem]:
    """Every problem of the window `top` as it is laid out now."""
    found = check_screen(top, scene)
    for widget, scrolled in walk(top):
        found.extend(check_widget(widget, scene, top))
        found.extend(check_siblings(widget, scene, top))
        if not scrolled and widget is not top:
            corner = widget.mapTo(top, QPoint(0, 0))
            if not top.rect().contains(QRect(corner, widget.size())):
                where = _rect(QRect(corner, widget.size()))
                found.append(Problem(scene, "outside", path_of(widget, top), where, "its window"))
    return _unique(found)


def _unique(found: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(found))


# --- the command ------------------------------------------------------------------------


def screen_config(size: str) -> str:
    width, height = (int(n) for n in size.split("x"))
    config = Path(tempfile.gettempdir()) / f"loki-audit-screen-{size}.json"
    screen = {"name": size, "x": 0, "y": 0, "width": width, "height": height}
    config.write_text(json.dumps({"screens": [screen]}))
    return f"offscreen:configfile={config}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ui.layout_audit")
    parser.add_argument("size", choices=SIZES)
    parser.add_argument("--language", choices=("fr", "en"), action="append")
    parser.add_argument("--scene", action="append", help="only these scenes (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object a problem")
    args = parser.parse_args(argv)
    os.environ["QT_QPA_PLATFORM"] = screen_config(args.size)
    home = tempfile.mkdtemp(prefix="loki-audit-")
    os.environ["LOKI_HOME"] = home
    for name in ("OLLAMA_HOST", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        os.environ.pop(name, None)
    from tests.ui.audit_scenes import run_scenes

    problems = run_scenes(args.language or ["fr", "en"], args.scene, Path(home))
    for problem in problems:
        print(json.dumps(asdict(problem), ensure_ascii=False) if args.json else problem)
    if not args.json:
        print(f"{len(problems)} problem(s) at {args.size}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
