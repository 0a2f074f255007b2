"""A conversation's branch shown, as Markdown a person reads: roles, times, the model, tool
cards as collapsed details (arguments, result, diff, check), skill badges; images inline as
data URIs, so the .md is one file that needs nothing beside it."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator

from loki_desktop.core.events import CheckReport
from loki_desktop.core.i18n import _, ngettext
from loki_desktop.core.messages import ChatMessage, ConversationExport, StoredMessage


def to_markdown(conversation: ConversationExport) -> str:
    path = conversation.path()
    results = {s.message.tool_call_id: s.message for s in path if s.message.role == "tool"}
    parts = [_header(conversation, len(path))]
    for stored in path:
        parts.extend(_message(stored, results))
    return "\n\n".join(parts) + "\n"


def _header(conversation: ConversationExport, shown: int) -> str:
    lines = [f"# {_one_line(conversation.title)}", ""]
    lines.append(
        _("- Conversation `{id}`, créée le {created}, exportée le {now}").format(
            id=conversation.id,
            created=when(conversation.created_at),
            now=when(time.time()),
        )
    )
    if conversation.workspace:
        lines.append(_("- Dossier de travail : `{path}`").format(path=conversation.workspace))
    branches = conversation.branch_count()
    if branches > 1:
        lines.append(
            ngettext(
                "- La version affichée ({n} message) d'une conversation à {b} branches : "
                "l'export JSON les garde toutes.",
                "- La version affichée ({n} messages) d'une conversation à {b} branches : "
                "l'export JSON les garde toutes.",
                shown,
            ).format(n=shown, b=branches)
        )
    return "\n".join(lines)


def _message(stored: StoredMessage, results: dict[str | None, ChatMessage]) -> Iterator[str]:
    message = stored.message
    if message.role in ("tool", "system"):
        return  # a result is shown in its call's card
    if message.role == "user" and message.origin == "harness":
        yield _quote(_("Note de Loki : {text}").format(text=message.content))
        return
    yield _heading(stored)
    if message.meta.skill is not None:
        yield "`" + _("méthode : {title}").format(title=message.meta.skill.title) + "`"
    if message.thinking:
        yield _details(reasoning_title(message), _fenced(message.thinking, "text"))
    if message.content:
        yield message.content + ("\n\n" + _("*(réponse coupée)*") if message.cut else "")
    for image in message.images:
        try:
            data = base64.b64encode(image.content()).decode("ascii")
        except OSError:
            yield _("*(image manquante : {name})*").format(name=image.name or "?")
            continue
        yield f"![{_one_line(image.name) or 'image'}](data:{image.mime_type};base64,{data})"
    for call in message.tool_calls:
        yield _tool_card(call.name, call.args, results.get(call.id))


def _heading(stored: StoredMessage) -> str:
    message = stored.message
    if message.role == "user":
        who = _("Vous")
    elif message.meta.model:
        who = _("Loki ({model})").format(model=message.meta.model)
    else:
        who = _("Loki")
    return f"## {who} · {when(stored.created_at)}"


def reasoning_title(message: ChatMessage) -> str:
    if message.thinking_seconds is None:
        return _("Réflexion")
    return _("Réflexion ({seconds} s)").format(seconds=f"{message.thinking_seconds:.1f}")


def _tool_card(name: str, args: dict[str, object], result: ChatMessage | None) -> str:
    if result is None:
        summary = _("{name} — sans résultat").format(name=name)
        return _details(summary, _fenced(json.dumps(args, ensure_ascii=False, indent=2), "json"))
    mark = "✓" if result.meta.ok else "✗"
    summary = f"{mark} {name}" + (
        f" — {_one_line(result.meta.summary)}" if result.meta.summary else ""
    )
    body = [
        "**" + _("Arguments") + "**",
        _fenced(json.dumps(args, ensure_ascii=False, indent=2), "json"),
        "**" + _("Résultat") + "**",
        _fenced(result.content, "text"),
    ]
    if result.meta.change is not None and result.meta.change.diff:
        body += ["**" + _("Modification") + "**", _fenced(result.meta.change.diff, "diff")]
    if result.meta.check is not None:
        body.append(_check(result.meta.check))
    return _details(summary, "\n\n".join(body))


def _check(report: CheckReport) -> str:
    if report.ok:
        return "**" + _("Vérification") + f"** ✓ {report.path}"
    lines = ["**" + _("Vérification") + f"** ✗ {report.path}", ""]
    lines += [f"- {problem.located(report.path)}" for problem in report.problems]
    return "\n".join(lines)


def _details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{_escape(summary)}</summary>\n\n{body}\n\n</details>"


def _fenced(text: str, language: str) -> str:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines() or [""])


def when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
