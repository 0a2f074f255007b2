"""`ask`'s answer to what MCP servers ask of the person: the terminal, or a refusal with a notice.

Without `--interactive`, a form or URL request is declined and said on stderr. With it, the
questions are asked on stderr and read from stdin, one field at a time (Enter keeps the
default; a choice is given by its number or value). Sampling is refused unless
`--allow-sampling`; with it, a server set to "never" is still refused, one set to "ask" is
asked in the terminal under `--interactive` (the flag is the consent otherwise).
"""

from __future__ import annotations

import asyncio
import sys
import threading
import webbrowser
from typing import TextIO

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.elicitation import ElicitationForm, FormField, Value
from loki_desktop.core.mcp.host import (
    ElicitAction,
    ElicitationAnswer,
    ElicitationRequest,
    SamplingReport,
    SamplingRequest,
)

ATTEMPTS = 3  # a field answered wrongly this many times cancels the form
SHOWN = 300  # characters of a prompt or answer shown in the terminal


class TerminalHost:
    def __init__(
        self,
        *,
        interactive: bool,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.interactive = interactive
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stderr

    # --- elicitation ----------------------------------------------------------------------

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        if not self.interactive:
            self._say(
                _(
                    "Le serveur « {name} » demande : « {message} ». Demande refusée : "
                    "relancez avec --interactive pour y répondre dans le terminal."
                ).format(name=request.server_label, message=request.message)
            )
            return ElicitationAnswer("decline")
        self._say(
            _("Le serveur « {name} » demande : {message}").format(
                name=request.server_label, message=request.message
            )
        )
        if request.form is None:
            return await self._url(request.url)
        choice = await self._choose(_("Répondre ? [o]ui, [n]on (refuser), [a]nnuler : "))
        if choice != "accept":
            return ElicitationAnswer(choice)
        return await self._fill(request.form)

    async def _url(self, url: str) -> ElicitationAnswer:
        self._say(_("Adresse : {url}").format(url=url))
        choice = await self._choose(
            _("L'ouvrir dans le navigateur ? [o]ui, [n]on (refuser), [a]nnuler : ")
        )
        if choice == "accept":
            webbrowser.open(url)
        return ElicitationAnswer(choice)

    async def _fill(self, form: ElicitationForm) -> ElicitationAnswer:
        values: dict[str, Value] = {}
        for item in form.fields:
            value = await self._ask_field(form, item)
            if isinstance(value, _Cancelled):
                return ElicitationAnswer("cancel")
            if value is not None:
                values[item.name] = value
        content, errors = form.validate(values)
        if errors:
            self._say(_("Formulaire incomplet : annulé."))
            return ElicitationAnswer("cancel")
        return ElicitationAnswer("accept", content)

    async def _ask_field(self, form: ElicitationForm, item: FormField) -> Value | _Cancelled:
        self._describe(item)
        for _attempt in range(ATTEMPTS):
            line = await self._read(_prompt(item))
            if line is None:
                return _Cancelled()
            text = line.strip()
            if not text:
                value: Value = item.default
            else:
                try:
                    value = form.parse(item.name, _numbered(item, text))
                except ValueError as exc:
                    self._say(str(exc))
                    continue
            _content, errors = form.validate({item.name: value})
            if item.name not in errors:
                return value
            self._say(errors[item.name])
        return _Cancelled()

    def _describe(self, item: FormField) -> None:
        if item.description:
            self._say(f"  {item.description}")
        for number, choice in enumerate(item.choices, 1):
            self._say(f"    {number}. {choice.label}")

    async def _choose(self, question: str) -> ElicitAction:
        line = await self._read(question)
        word = (line or "").strip().lower()
        if line is None or word in ("a", "annuler", "c", "cancel"):
            return "cancel"
        if word in ("o", "oui", "y", "yes"):
            return "accept"
        return "decline"

    # --- sampling -------------------------------------------------------------------------

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        if not self.interactive:
            return True  # --allow-sampling is the consent (see the module docstring)
        self._say(
            _("Le serveur « {name} » demande une réponse à votre modèle :").format(
                name=request.server_label
            )
        )
        self._say(f"  {request.prompt[:SHOWN]}")
        return await self._choose(_("Autoriser ? [o]ui, [n]on : ")) == "accept"

    def sampling_done(self, report: SamplingReport) -> None:
        name = report.request.server_label
        if report.ok:
            self._say(
                _("Votre modèle ({model}) a répondu à « {name} » : {answer}").format(
                    model=report.model, name=name, answer=report.answer[:SHOWN]
                )
            )
        else:
            self._say(report.refused)

    # --- terminal -------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def _read(self, question: str) -> str | None:
        """One line from stdin (None at its end), read in a daemon thread: the loop keeps
        running, and Ctrl+C while a question waits ends `ask` without waiting for Enter (a
        worker of asyncio.to_thread would be joined at exit)."""
        print(question, end="", file=self.out, flush=True)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def read() -> None:
            try:
                line = self.stdin.readline()
            except (OSError, ValueError):
                line = ""
            loop.call_soon_threadsafe(_settle, answer, line)

        threading.Thread(target=read, name="ask-stdin", daemon=True).start()
        line = await answer
        return line if line else None


def _settle(answer: asyncio.Future[str], line: str) -> None:
    if not answer.done():  # a question cancelled meanwhile (the turn stopped)
        answer.set_result(line)


class _Cancelled:
    """The person ended stdin, or failed a field too many times."""


def _prompt(item: FormField) -> str:
    mark = _(" (obligatoire)") if item.required else ""
    default = item.default
    if isinstance(default, list):
        default = ", ".join(default)
    if isinstance(default, bool):
        default = _("oui") if default else _("non")
    shown = f" [{default}]" if default not in (None, "") else ""
    return f"  {item.label}{mark}{shown} : "


def _numbered(item: FormField, text: str) -> str:
    """A choice given by its number (1-based) stands for its value; lists too ("1, 3")."""
    if not item.choices:
        return text
    parts = [part.strip() for part in text.split(",")] if item.kind == "choices" else [text]
    picked = []
    for part in parts:
        if part.isdigit() and 1 <= int(part) <= len(item.choices):
            picked.append(item.choices[int(part) - 1].value)
        else:
            picked.append(part)
    return ", ".join(picked)
