"""Does a model follow a system instruction? One short request tells (`models --probe`, the
server editor's button).

An OpenAI-compatible server does not show the chat template: llama.cpp's `gemma` format, for
one, drops the system message without a word. The probe sends a system message that asks
for one made-up word whatever the user says, and a user message that asks for something
else; the word in the answer means the instruction reached the model and was followed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.caps import NUM_PREDICT
from loki_desktop.core.ports import ChatBackend

# A word no model says unprompted, in any case or spacing
PROBE_WORD = "ZORBLAX"
PROBE_SYSTEM = (
    f"Whatever the user writes, answer with the single word {PROBE_WORD} and nothing else."
)
PROBE_USER = "What is the capital of France?"
PROBE_TOKENS = 16  # the word, and room for a little politeness around it

Verdict = Literal["follows", "ignores"]


@dataclass(frozen=True, slots=True)
class ProbeResult:
    model: str
    verdict: Verdict
    answer: str  # what the model said (cut to a line)

    def sentence(self) -> str:
        if self.verdict == "follows":
            return _(
                "« {model} » suit une consigne système : les consignes de Loki lui parviennent."
            ).format(model=self.model)
        return _(
            "« {model} » n'a pas suivi la consigne système (réponse : « {answer} ») : le "
            "serveur la laisse peut-être de côté (un format de conversation comme « gemma » "
            "de llama.cpp), ou le modèle est trop petit pour la suivre. Essayez le réglage "
            "« consignes dans le premier message » pour ce serveur."
        ).format(model=self.model, answer=self.answer or "…")


async def probe_system(backend: ChatBackend, model: str) -> ProbeResult:
    """One short request; BackendError when the server fails (its sentence says why)."""
    messages = [
        {"role": "system", "content": PROBE_SYSTEM},
        {"role": "user", "content": PROBE_USER},
    ]
    pieces = []
    stream = backend.chat(
        model=model, messages=messages, tools=[], options={NUM_PREDICT: PROBE_TOKENS}
    )
    async for chunk in stream:
        pieces.append(chunk.content)
    answer = " ".join("".join(pieces).split())
    follows = PROBE_WORD in answer.upper().replace(" ", "")
    return ProbeResult(model, "follows" if follows else "ignores", answer[:80])
