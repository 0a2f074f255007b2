"""Screenshots for docs/messages.md: a sent message with file chips, an answer with formulas
and its figures, the composer with chips and a nearly full context bar.

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/screenshot_messages.py [--out docs]

The widgets are the window's own, filled through their mutators as a turn fills them (the
figures are those of a real turn against the scripted server's counts); offscreen Qt draws
them with the app's style sheet.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ANSWER = """\
La loi des gaz parfaits relie pression, volume et température : $PV = nRT$.

Pour une mole à $T = 300\\,\\mathrm{K}$ dans $V = 24{,}9\\,\\mathrm{L}$ :

$$
P = \\frac{nRT}{V} = \\frac{1 \\times 8{,}314 \\times 300}{0{,}0249} \\approx 1{,}0 \\times 10^{5}\\,\\mathrm{Pa}
$$

Le devis joint coûte $5 de plus que l'an dernier (le signe dollar reste du texte).
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(REPO))
    from PySide6.QtWidgets import QApplication

    from loki_desktop.core.answer_stats import AnswerStats
    from loki_desktop.core.attachments.model import FileAttachment
    from loki_desktop.core.message_meta import FileChip
    from loki_desktop.ui.chat.composer import Composer
    from loki_desktop.ui.chat.view import ChatView
    from loki_desktop.ui.text.markdown_render import MarkdownRenderer
    from loki_desktop.ui.theme import Theme

    app = QApplication(sys.argv[:1])
    theme = Theme("light")
    theme.apply(app)
    view = ChatView(MarkdownRenderer(theme.palette, "Copier"))
    view.resize(900, 330)
    chips = (FileChip("devis-2026.pdf", 48_213, "pdf"), FileChip("mesures.csv", 3_912, "text"))
    view.add_user_message("Calcule la pression, et compare avec le devis joint.", (), chips)
    view.append_text(ANSWER)
    view.show_figures(AnswerStats(3012, 142, 38.4, 0.61, 3154, 8192))
    view.show()
    app.processEvents()
    args.out.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(args.out / "messages-answer.png"))

    composer = Composer()
    composer.resize(760, 160)
    composer.attachments.restore(
        [
            FileAttachment("rapport.pdf", 1_284_000, "pdf", "…", 1, pages=42),
            FileAttachment("main.py", 12_400, "text", "…", 1),
        ]
    )
    composer.show_context(AnswerStats(6900, 40, None, None, 6900, 8192))
    composer.set_text("Résume le rapport et relis main.py")
    composer.show()
    app.processEvents()
    composer.grab().save(str(args.out / "messages-composer.png"))
    for name in ("messages-answer.png", "messages-composer.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
