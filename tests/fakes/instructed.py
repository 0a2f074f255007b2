"""Scripts for the OpenAI-compatible fake: a model that follows the system instruction of
Loki's probe (core.llm.probe) when it reaches it, and a chat format that drops the system
message on the way (llama.cpp's `gemma`, measured: the instructions never reach the model)."""

from __future__ import annotations

from typing import Any

from loki_desktop.core.llm.probe import PROBE_WORD
from tests.fakes.openai_server import Reply


def obeys_what_reaches_it(body: dict[str, Any]) -> Reply:
    """Says the probe's word when a system message reached it, else answers the question."""
    system = [m for m in body["messages"] if m["role"] == "system"]
    return Reply.text(PROBE_WORD.capitalize(), ".") if system else Reply.text("Paris", ".")


def drops_the_system_message(body: dict[str, Any]) -> Reply:
    """The same model behind a chat format that leaves the system message out."""
    kept = [m for m in body["messages"] if m["role"] != "system"]
    return obeys_what_reaches_it({**body, "messages": kept})
