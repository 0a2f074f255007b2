"""What a model's chat template does with Loki's instructions, read from Ollama's `/api/show`.

Ollama renders each request through the model's Go template (template/template.go). A
template that uses `.Messages` gets every message, the system ones included, and drops
those it never prints; an older template gets `.System`, `.Prompt` and `.Response`, and
drops the system text when it never prints `.System`. `{{ .Prompt }}` alone, the default
of an imported model, is no chat at all: the text goes to the model as it is (a base model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.DOTALL)
# a message's role printed as it is ("{{ .Role }}: {{ .Content }}") prints "system" too
_ROLE_PRINTED = re.compile(r"^\s*\.Role\s*$")


@dataclass(frozen=True, slots=True)
class TemplateFacts:
    """`system`: the system text reaches the model; `chat`: the template has turn markers.
    None: unknown (no template was given)."""

    system: bool | None = None
    chat: bool | None = None


def read_template(template: object) -> TemplateFacts:
    """The facts of an /api/show `template` (anything else: unknown)."""
    if not isinstance(template, str) or not template.strip():
        return TemplateFacts()
    actions = _ACTION.findall(template)
    literal = _ACTION.sub("", template)
    return TemplateFacts(system=_reaches_system(actions), chat=bool(literal.strip()))


def _reaches_system(actions: list[str]) -> bool:
    if any(".System" in action for action in actions):
        return True
    if not any(".Messages" in action for action in actions):
        return False  # a legacy template that never prints .System
    return any('"system"' in action or _ROLE_PRINTED.match(action) for action in actions)


def fold_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request with its system messages folded into the first user message (for a
    template that would drop them); nothing changes when there is no user message."""
    system = [m for m in messages if m.get("role") == "system"]
    rest = [m for m in messages if m.get("role") != "system"]
    first_user = next((i for i, m in enumerate(rest) if m.get("role") == "user"), None)
    if not system or first_user is None:
        return messages
    instructions = "\n\n".join(str(m.get("content") or "") for m in system)
    user = rest[first_user]
    folded = dict(user, content=f"{instructions}\n\n---\n\n{user.get('content') or ''}")
    return [*rest[:first_user], folded, *rest[first_user + 1 :]]
