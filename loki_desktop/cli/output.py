"""Printing a turn's events: plain text for people, one JSON object a line for programs."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from loki_desktop.core.events import (
    CheckReport,
    Done,
    Error,
    Event,
    Memorised,
    Notice,
    Recalled,
    SkillUsed,
    Thinking,
    Token,
    ToolCall,
    ToolResult,
    event_to_json,
)
from loki_desktop.core.i18n import _, ngettext


class JsonPrinter:
    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out

    def __call__(self, event: Event) -> None:
        self.out.write(json.dumps(event_to_json(event), ensure_ascii=False) + "\n")
        self.out.flush()


# ANSI "faint", only when stderr is a terminal (a file or a pipe gets the plain text)
DIM, RESET = "\x1b[2m", "\x1b[0m"


class PlainPrinter:
    """The answer on stdout; tool activity, notices and errors on stderr.

    The model's reasoning is printed only with `show_thinking`, dimmed, on stderr.
    """

    def __init__(
        self, out: TextIO = sys.stdout, err: TextIO = sys.stderr, *, show_thinking: bool = False
    ) -> None:
        self.out = out
        self.err = err
        self.show_thinking = show_thinking
        self._mid_line = False
        self._thinking = False  # reasoning printed and its line not yet ended
        self._dim = err.isatty()

    def __call__(self, event: Event) -> None:
        if self._thinking and not isinstance(event, Thinking):
            self._end_thinking()
        match event:
            case Thinking(text=text):
                if self.show_thinking:
                    self._think(text)
            case Token(text=text):
                self.out.write(text)
                self.out.flush()
                self._mid_line = not text.endswith("\n")
            case SkillUsed(title=title):
                self._note("[" + _("méthode : {title}").format(title=title) + "]")
            case ToolCall(name=name, args=args):
                shown = json.dumps(args, ensure_ascii=False)
                if len(shown) > 200:
                    shown = shown[:199] + "…"
                self._note(f"→ {name} {shown}")
            case ToolResult(name=name, ok=ok, summary=summary, change=change):
                counts = f" (+{change.added} −{change.removed})" if change is not None else ""
                self._note(f"{'✓' if ok else '✗'} {name} : {summary}{counts}")
            case CheckReport(path=path, ok=ok, problems=problems, skipped=skipped):
                if ok:
                    checked = _("vérification de {path}").format(path=path)
                    self._note(f"✓ {checked}" + (f" ({skipped})" if skipped else ""))
                else:
                    failed = ngettext(
                        "vérification de {path} : {n} problème",
                        "vérification de {path} : {n} problèmes",
                        len(problems),
                    )
                    self._note("✗ " + failed.format(path=path, n=len(problems)))
                    for problem in problems:
                        self._note(f"  {problem.located(path)}")
            case Recalled(items=items):
                self._note("[" + _("souvenirs : {n}").format(n=len(items)) + "]")
            case Memorised(id=memory_id, text=text):
                self._note(_("Mémorisé : {text} (n° {id})").format(text=text, id=memory_id))
            case Notice(message=message):
                self._note(_("note : {text}").format(text=message))
            case Error(message=message):
                self._note(message)
            case Done(session=session):
                if self._mid_line:
                    self.out.write("\n")
                    self.out.flush()
                    self._mid_line = False
                if session:
                    self._note(f"[session {session}]")

    def _think(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(f"{DIM}{text}{RESET}" if self._dim else text)
        self.err.flush()
        self._thinking = not text.endswith("\n")

    def _end_thinking(self) -> None:
        self._thinking = False
        self.err.write("\n")
        self.err.flush()

    def _note(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(text + "\n")
        self.err.flush()
