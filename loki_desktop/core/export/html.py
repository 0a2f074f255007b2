"""A conversation's branch shown, as one self-contained HTML page that loads nothing.

Styles are inline, images are data URIs, and a Content-Security-Policy forbids any other
source. The messages' Markdown is rendered with raw HTML escaped, and without links or
images: a URL the model wrote stays text, so opening the page reaches no server.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from loki_desktop.core.export.markdown import reasoning_title, when
from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.messages import (
    ChatMessage,
    ConversationExport,
    StoredMessage,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto;
       padding: 0 1rem; color: #111; background: #fff; }
.message { border: 3px solid #111; padding: .25rem 1rem; margin: 1rem 0; }
.user { background: #f3f0ff; }
.note { border-style: dashed; color: #444; }
.who { font-weight: 700; margin: .5rem 0; }
.skill { display: inline-block; border: 2px solid #111; padding: 0 .4rem; font-size: 85%; }
details { border: 2px solid #111; margin: .5rem 0; padding: .25rem .5rem; }
pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; white-space: pre-wrap; }
img { max-width: 100%; }
@media (prefers-color-scheme: dark) {
  body { color: #eee; background: #161616; } .message, details, .skill { border-color: #eee; }
  .user { background: #2a2540; } pre { background: #222; }
}
"""


def to_html(conversation: ConversationExport) -> str:
    path = conversation.path()
    results = {s.message.tool_call_id: s.message for s in path if s.message.role == "tool"}
    render = _renderer().render
    body = "\n".join(part for stored in path for part in _message(stored, results, render))
    title = html.escape(conversation.title)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{title}</title>\n<style>{STYLE}</style></head>\n<body>\n"
        f"<h1>{title}</h1>\n<p>{_header(conversation)}</p>\n{body}\n</body></html>\n"
    )


def _renderer() -> MarkdownIt:
    from markdown_it import MarkdownIt  # only when a page is made

    # raw HTML escaped; no links, autolinks or images: nothing in the page points outside
    return MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])


def _header(conversation: ConversationExport) -> str:
    text = _("Conversation {id}, créée le {created}").format(
        id=conversation.id, created=when(conversation.created_at)
    )
    if conversation.workspace:
        text += " · " + _("Dossier de travail : {path}").format(path=conversation.workspace)
    return html.escape(text)


def _message(
    stored: StoredMessage, results: dict[str | None, ChatMessage], render: Callable[[str], str]
) -> Iterator[str]:
    message = stored.message
    if message.role in ("tool", "system"):
        return
    if message.role == "user" and message.origin == "harness":
        note = _("Note de Loki : {text}").format(text=message.content)
        yield f'<div class="message note">{render(note)}</div>'
        return
    parts = [f'<div class="who">{html.escape(_who(message))} · {when(stored.created_at)}</div>']
    if message.meta.skill is not None:
        badge = _("méthode : {title}").format(title=message.meta.skill.title)
        parts.append(f'<span class="skill">{html.escape(badge)}</span>')
    if message.thinking:
        parts.append(_details(reasoning_title(message), _pre(message.thinking)))
    parts.append(render(message.content))
    if message.cut:
        parts.append("<p><em>" + html.escape(_("(réponse coupée)")) + "</em></p>")
    parts.extend(_image(image) for image in message.images)
    for call in message.tool_calls:
        parts.append(_card(call.name, call.args, results.get(call.id)))
    kind = "user" if message.role == "user" else "assistant"
    yield f'<div class="message {kind}">' + "\n".join(parts) + "</div>"


def _who(message: ChatMessage) -> str:
    if message.role == "user":
        return _("Vous")
    if message.meta.model:
        return _("Loki ({model})").format(model=message.meta.model)
    return _("Loki")


def _image(image: ImageAttachment) -> str:
    try:
        data = base64.b64encode(image.content()).decode("ascii")
    except OSError:
        return "<p><em>" + html.escape(_("(image manquante)")) + "</em></p>"
    if image.mime_type not in ("image/png", "image/jpeg", "image/webp", "image/gif"):
        return ""
    alt = html.escape(image.name or "image")
    return f'<p><img alt="{alt}" src="data:{image.mime_type};base64,{data}"></p>'


def _card(name: str, args: dict[str, object], result: ChatMessage | None) -> str:
    shown_args = _pre(json.dumps(args, ensure_ascii=False, indent=2))
    if result is None:
        return _details(_("{name} — sans résultat").format(name=name), shown_args)
    head = ("✓ " if result.meta.ok else "✗ ") + name
    if result.meta.summary:
        head += " — " + result.meta.summary
    body = [f"<p><strong>{html.escape(_('Arguments'))}</strong></p>", shown_args]
    body += [f"<p><strong>{html.escape(_('Résultat'))}</strong></p>", _pre(result.content)]
    if result.meta.change is not None and result.meta.change.diff:
        body += [f"<p><strong>{html.escape(_('Modification'))}</strong></p>"]
        body.append(_pre(result.meta.change.diff))
    check = result.meta.check
    if check is not None:
        lines = [p.located(check.path) for p in check.problems]
        mark = "✓" if check.ok else "✗"
        body.append(f"<p><strong>{html.escape(_('Vérification'))}</strong> {mark} ")
        body.append(html.escape(check.path) + "</p>")
        if lines:
            body.append(_pre("\n".join(lines)))
    return _details(head, "\n".join(body))


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>\n{body}\n</details>"


def _pre(text: str) -> str:
    return f"<pre><code>{html.escape(text)}</code></pre>"
