"""Loki's look: two palettes (light, dark), the style sheet they fill, and the app icon."""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from importlib import resources
from string import Template

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

RESOURCES = "loki_desktop.resources"
THEME_CHOICES = ("system", "light", "dark")


@dataclass(frozen=True, slots=True)
class Palette:
    """The limited palette of a theme; every colour the window uses comes from here."""

    name: str
    bg: str  # the window
    surface: str  # cards, inputs
    sidebar: str
    ink: str  # text and the 3 px outlines
    muted: str
    accent: str  # Loki green
    accent_ink: str  # text on accent
    gold: str
    gold_soft: str  # the user's messages
    danger: str
    danger_soft: str
    warn: str  # a context nearly full (the composer's bar past 80 %)
    ok_soft: str
    code_bg: str
    code_head: str
    code_head_ink: str
    link: str
    pygments: str  # pygments style for code blocks

    @property
    def dark(self) -> bool:
        return self.name == "dark"


LIGHT = Palette(
    name="light",
    bg="#F4F1E8",
    surface="#FFFFFF",
    sidebar="#E9E4D4",
    ink="#16181A",
    muted="#5E625E",
    accent="#1B7F4B",
    accent_ink="#FFFFFF",
    gold="#F2B705",
    gold_soft="#FFF1C2",
    danger="#C8102E",
    danger_soft="#FDE3E6",
    warn="#E8730C",
    ok_soft="#DDF3E4",
    code_bg="#FBFAF5",
    code_head="#16181A",
    code_head_ink="#F4F1E8",
    link="#1B5FBF",
    pygments="friendly",
)

DARK = Palette(
    name="dark",
    bg="#141614",
    surface="#1D201E",
    sidebar="#0E100F",
    ink="#ECE8DC",
    muted="#9CA39C",
    accent="#3DDC84",
    accent_ink="#0E100F",
    gold="#F2C230",
    gold_soft="#302A14",
    danger="#FF5C6C",
    danger_soft="#3B1B20",
    warn="#FF9F43",
    ok_soft="#16301F",
    code_bg="#0E100F",
    code_head="#2B302C",
    code_head_ink="#ECE8DC",
    link="#7DB7FF",
    pygments="github-dark",
)


def resource_text(name: str) -> str:
    return resources.files(RESOURCES).joinpath(name).read_text(encoding="utf-8")


def app_icon() -> QIcon:
    with resources.as_file(resources.files(RESOURCES).joinpath("loki.svg")) as path:
        return QIcon(str(path))


def info_icon() -> QIcon:
    """The "i" of a notice, drawn in the muted colour of the theme in force.

    One icon per file for the whole run: an SVG icon caches the pixmaps it draws in
    QPixmapCache under its own serial number, so a new QIcon per notice added a 16x16
    pixmap to that cache (up to its 10 MB) for every notice ever built, each one left alone
    between the freed pages of the conversation that built it (the soak: ~100 of them over
    90 turns, ~1 MB of the main heap kept resident after malloc_trim)."""
    window = QGuiApplication.palette().color(QPalette.ColorRole.Window)
    return _svg_icon(f"info-{'dark' if window.lightness() < 128 else 'light'}.svg")


@functools.cache
def _svg_icon(name: str) -> QIcon:
    return QIcon(resource_path(name))


def resource_path(name: str) -> str:
    """A file of the resources as a path Qt can read (the package is installed unzipped)."""
    return str(resources.files(RESOURCES).joinpath(name)).replace("\\", "/")


def style_sheet(palette: Palette) -> str:
    values = asdict(palette)
    values["arrow_down"] = resource_path(f"arrow-down-{palette.name}.svg")
    values["arrow_up"] = resource_path(f"arrow-up-{palette.name}.svg")
    values["check"] = resource_path(f"check-{palette.name}.svg")
    return Template(resource_text("style.qss")).substitute(values)


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return bool(hints.colorScheme() == Qt.ColorScheme.Dark)


class Theme(QObject):
    """The palette in force; follows the system's light/dark scheme unless the user chose one."""

    changed = Signal()

    def __init__(self, choice: str = "system") -> None:
        super().__init__()
        self.choice = choice if choice in THEME_CHOICES else "system"
        self.palette = self._resolve()
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_change)

    def set_choice(self, choice: str) -> None:
        self.choice = choice if choice in THEME_CHOICES else "system"
        self._refresh()

    def apply(self, app: QApplication) -> None:
        app.setStyleSheet(style_sheet(self.palette))
        qt_palette = QPalette()
        for role, colour in (
            (QPalette.ColorRole.Window, self.palette.bg),
            (QPalette.ColorRole.Base, self.palette.surface),
            (QPalette.ColorRole.Text, self.palette.ink),
            (QPalette.ColorRole.WindowText, self.palette.ink),
            (QPalette.ColorRole.ButtonText, self.palette.ink),
            (QPalette.ColorRole.Button, self.palette.surface),
            (QPalette.ColorRole.Highlight, self.palette.gold),
            (QPalette.ColorRole.HighlightedText, "#16181A"),
            (QPalette.ColorRole.Link, self.palette.link),
            (QPalette.ColorRole.PlaceholderText, self.palette.muted),
            (QPalette.ColorRole.ToolTipBase, self.palette.surface),
            (QPalette.ColorRole.ToolTipText, self.palette.ink),
        ):
            qt_palette.setColor(role, QColor(colour))
        app.setPalette(qt_palette)

    def _resolve(self) -> Palette:
        if self.choice == "dark":
            return DARK
        if self.choice == "light":
            return LIGHT
        return DARK if system_is_dark() else LIGHT

    def _on_system_change(self, *_args: object) -> None:
        if self.choice == "system":
            self._refresh()

    def _refresh(self) -> None:
        palette = self._resolve()
        if palette != self.palette:
            self.palette = palette
            app = QApplication.instance()
            if isinstance(app, QApplication):
                self.apply(app)
            self.changed.emit()
