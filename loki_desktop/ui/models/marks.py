"""Small capability marks for the models (tools, thinking, vision), from their /api/show profile."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QHBoxLayout,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import ModelProfile
from loki_desktop.ui.qt_helpers import label

MARKS_ROLE = Qt.ItemDataRole.UserRole + 1  # the item's marks, as a list of short words
MARK_GAP = 4
MARK_PAD = 4


def marks_of(profile: ModelProfile | None) -> list[str]:
    """The short words shown beside a model: OUTILS, RÉFLEXION, VISION (those it has)."""
    if profile is None:
        return []
    if not profile.known:  # an OpenAI-compatible server says nothing: unknown, not assumed
        return [_("CAPACITÉS INCONNUES"), *([_("VISION")] if profile.vision else [])]
    marks = []
    if profile.tools:
        marks.append(_("OUTILS"))
    if profile.thinking:
        marks.append(_("RÉFLEXION"))
    if profile.vision:
        marks.append(_("VISION"))
    return marks


def describe(profile: ModelProfile | None) -> str:
    """One line for a tooltip: what the model can do, its size and quantization."""
    if profile is None:
        return ""
    if not profile.known:
        return _(
            "Le serveur ne dit pas ce que ce modèle sait faire : Loki essaie les outils, "
            "et les images une fois que le serveur en a accepté une pour lui.",
        )
    parts = [
        _("outils natifs") if profile.tools else _("sans outils natifs (outils décrits)"),
    ]
    if profile.thinking:
        levels = profile.think_levels
        parts.append(
            _("réflexion ({levels})").format(levels=", ".join(levels)) if levels else _("réflexion")
        )
    if profile.vision:
        parts.append(_("lit les images"))
    if profile.chat_template is False:
        parts.append(_("modèle de base, pas fait pour la conversation"))
    elif profile.system_slot is False:
        parts.append(
            _("consignes de Loki dans le premier message (son gabarit n'a pas de place pour elles)")
        )
    size = " ".join(p for p in (profile.parameter_size, profile.quantization) if p)
    line = " · ".join(parts)
    return f"{line} — {size}" if size else line


class MarksDelegate(QStyledItemDelegate):
    """The picker's list: the model's name, then its marks as small outlined chips."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mark_font = QFont()
        self.mark_font.setPointSizeF(max(6.5, self.mark_font.pointSizeF() * 0.72))
        self.mark_font.setBold(True)

    def _marks_width(self, marks: list[str]) -> int:
        metrics = QFontMetrics(self.mark_font)
        return sum(metrics.horizontalAdvance(m) + 2 * MARK_PAD + MARK_GAP for m in marks)

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        size = super().sizeHint(option, index)
        marks = index.data(MARKS_ROLE) or []
        return QSize(size.width() + self._marks_width(marks) + 16, size.height())

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        super().paint(painter, option, index)
        marks = index.data(MARKS_ROLE) or []
        if not marks:
            return
        rect: QRect = option.rect
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        ink = palette.highlightedText() if selected else palette.text()
        colour = QColor(ink.color())
        metrics = QFontMetrics(self.mark_font)
        painter.save()
        painter.setFont(self.mark_font)
        painter.setPen(QPen(colour, 1.5))
        right = rect.right() - 6
        height = metrics.height() + 2
        top = rect.top() + (rect.height() - height) // 2
        for mark in reversed(marks):
            width = metrics.horizontalAdvance(mark) + 2 * MARK_PAD
            chip = QRect(right - width, top, width, height)
            painter.drawRect(chip)
            painter.drawText(chip, Qt.AlignmentFlag.AlignCenter, mark)
            right -= width + MARK_GAP
        painter.restore()


class MarksRow(QWidget):
    """The chosen model's marks, beside the picker in the header."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ModelMarks")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(MARK_GAP)
        self.marks: list[str] = []
        self.suppressed = False  # the header is compact: the marks are not shown

    def set_profile(self, profile: ModelProfile | None) -> None:
        while (item := self._layout.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        self.marks = marks_of(profile)
        for mark in self.marks:
            self._layout.addWidget(label(mark, "ModelMark"))
        self.setToolTip(describe(profile))
        self.setVisible(bool(self.marks) and not self.suppressed)
