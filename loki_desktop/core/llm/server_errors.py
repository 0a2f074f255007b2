"""What an Ollama-protocol server's error answer means, as one sentence (or a typed error).

Shapes seen in the field:
- Ollama: `{"error": "registry.ollama.ai/library/gemma3:4b does not support tools"}` (400),
  `{"error": "\\"gemma3:4b\\" does not support thinking"}` (400), `{"error": "model runner has
  unexpectedly stopped, this may be due to resource limitations or an internal error, check
  ollama server logs for details"}` (500), `{"error": "llama runner process has terminated:
  exit status 2"}` (500);
- llama.cpp's server behind an Ollama-protocol front: `{"error": {"code": 400, "type":
  "exceed_context_size_error", "message": "request (9412 tokens) exceeds the available context
  size (8192 tokens), try increasing it", "n_prompt_tokens": 9412, "n_ctx": 8192}}`;
- OpenAI-style fronts: `{"error": {"message": "This model's maximum context length is 4096
  tokens. However, your messages resulted in 17000 tokens.", "type": "invalid_request_error",
  "code": "context_length_exceeded"}}`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.ports import (
    BackendError,
    ContextOverflow,
    ThinkingUnsupported,
    ToolsUnsupported,
)

_OVERFLOW_TYPES = ("exceed_context_size_error", "context_length_exceeded")
_OVERFLOW_WORDS = (
    "exceeds the available context size",
    "maximum context length",
    "context length exceeded",
    "context_length_exceeded",
    "exceed_context_size",
    "prompt is too long",
)
_CRASH_WORDS = (
    "runner has unexpectedly stopped",
    "runner process has terminated",
    "runner process no longer running",
    "exit status",
    "segmentation fault",
)
_MEMORY_WORDS = ("out of memory", "requires more system memory", "cudamalloc failed")
_MAX_DETAIL = 300
# "(9412 tokens) exceeds ... (8192 tokens)" / "maximum context length is 4096 tokens ...
# resulted in 17000 tokens"
_LLAMA_NUMBERS = re.compile(r"\((\d+) tokens\).*?context size \((\d+) tokens\)", re.S)
_OPENAI_NUMBERS = re.compile(r"maximum context length is (\d+).*?(\d+) tokens", re.S)


def error_value(body: str) -> Any:
    """The `error` of an error body (a string or an object), else the raw text."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.strip()
    if isinstance(parsed, dict) and "error" in parsed:
        return parsed["error"]
    return body.strip()


def error_text(error: Any) -> str:
    """The human part of an error value: its `message` when it is an object."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or error.get("type")
        if message:
            return str(message)
        return json.dumps(error, ensure_ascii=False)
    if isinstance(error, str):
        # a JSON body given as text (some fronts wrap twice)
        inner = error_value(error) if error.lstrip().startswith("{") else error
        return inner if isinstance(inner, str) else error_text(inner)
    return str(error)


def answered_error(status: int, error: Any) -> BackendError:
    """The error to raise for an answer with HTTP `status` (-1: an error line mid-stream)."""
    text = error_text(error)
    lowered = text.lower()
    if "does not support tools" in lowered:
        return ToolsUnsupported(text)
    if "does not support thinking" in lowered:
        return ThinkingUnsupported(text)
    overflow = _overflow(error, text)
    if overflow is not None:
        return overflow
    detail = _short(text)
    if any(word in lowered for word in _MEMORY_WORDS):
        return BackendError(
            _(
                "Le serveur n'a pas assez de mémoire pour ce modèle ({detail}). Choisissez un "
                "modèle plus petit ou réduisez le contexte (num_ctx) dans les réglages."
            ).format(detail=detail)
        )
    if any(word in lowered for word in _CRASH_WORDS):
        return BackendError(
            _(
                "Le moteur du modèle s'est arrêté pendant la réponse (souvent faute de mémoire). "
                "Réessayez ; si cela se répète, choisissez un modèle plus petit ou réduisez le "
                "contexte (num_ctx) dans les réglages. Détail : {detail}"
            ).format(detail=detail)
        )
    if status >= 500:
        return BackendError(
            _("Le serveur du modèle a échoué ({status}) : {detail}").format(
                status=status, detail=detail
            )
        )
    if status > 0:
        return BackendError(
            _("Le serveur du modèle a refusé la requête ({status}) : {detail}").format(
                status=status, detail=detail
            )
        )
    return BackendError(
        _("Le serveur du modèle a signalé une erreur : {detail}").format(detail=detail)
    )


def _overflow(error: Any, text: str) -> ContextOverflow | None:
    kind = ""
    n_ctx = n_prompt = None
    if isinstance(error, dict):
        kind = f"{error.get('type', '')} {error.get('code', '')}"
        n_ctx = _int(error.get("n_ctx"))
        n_prompt = _int(error.get("n_prompt_tokens"))
    lowered = text.lower()
    if not (any(t in kind for t in _OVERFLOW_TYPES) or any(w in lowered for w in _OVERFLOW_WORDS)):
        return None
    if n_ctx is None and (match := _LLAMA_NUMBERS.search(text)):
        n_prompt, n_ctx = int(match.group(1)), int(match.group(2))
    if n_ctx is None and (match := _OPENAI_NUMBERS.search(text)):
        n_ctx, n_prompt = int(match.group(1)), int(match.group(2))
    if n_ctx is not None:
        message = _(
            "La requête (~{prompt} jetons) dépasse le contexte de {n_ctx} jetons avec lequel "
            "le serveur fait tourner le modèle."
        ).format(prompt=n_prompt if n_prompt is not None else "?", n_ctx=n_ctx)
    else:
        message = _("La requête dépasse le contexte avec lequel le serveur fait tourner le modèle.")
    return ContextOverflow(message, n_ctx=n_ctx, n_prompt=n_prompt)


def _int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"
