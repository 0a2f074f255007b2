"""What an OpenAI-compatible server's error answer means, as a sentence that names the server.

Error bodies seen (OpenAI API reference "Error codes"; vLLM's protocol.py ErrorResponse):
- OpenAI: `{"error": {"message": "Incorrect API key provided: sk-…", "type":
  "invalid_request_error", "param": null, "code": "invalid_api_key"}}` (401);
  `{"error": {"message": "The model `x` does not exist or you do not have access to it.",
  "type": "invalid_request_error", "param": null, "code": "model_not_found"}}` (404);
- vLLM 0.6+: `{"error": {"message": "The model `x` does not exist.", "type":
  "NotFoundError", "param": null, "code": 404}}`; before: the same fields at the top level
  with `"object": "error"`; its context overflow is a 400 "This model's maximum context length
  is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the
  completion)..." (newer: "...However, your request has 5000 input tokens...");
  `--api-key` set and a wrong key: 401 `{"error": "Unauthorized"}`; tools without
  `--enable-auto-tool-choice`: 400 `"auto" tool choice requires --enable-auto-tool-choice
  and --tool-call-parser to be set`;
- llama.cpp's llama-server: `{"error": {"code": 400, "type": "exceed_context_size_error",
  "message": "...", "n_prompt_tokens": N, "n_ctx": M}}`;
- llama-cpp-python's server: its ValueError "Requested tokens (3000) exceed context window of
  2048" as a 500 (or, once streaming has begun, an empty 200).
"""

from __future__ import annotations

import json
import re
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.lines import too_long_sentence
from loki_desktop.core.llm.server_errors import answered_error, error_text
from loki_desktop.core.ports import (
    BackendError,
    BackendUnreachable,
    ContextOverflow,
    ModelNotFound,
    StreamCut,
    ToolsUnsupported,
)

_MAX_DETAIL = 300
_PROMPT_PART = re.compile(r"\((\d+) in the messages")
# llama-cpp-python's ValueError, sent as a 500 by its server
_LLAMA_PY_OVERFLOW = re.compile(r"requested tokens \((\d+)\) exceed context window of (\d+)", re.I)
_TOOL_REFUSALS = (
    "tool choice requires",
    "enable-auto-tool-choice",
    "does not support tools",
    "tools are not supported",
    "tool_choice",
)


def error_of(body: str) -> Any:
    """The error value of a body: `{"error": ...}`'s value, a top-level vLLM error object,
    or the text itself."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.strip()
    if isinstance(parsed, dict):
        if "error" in parsed:
            return parsed["error"]
        if parsed.get("object") == "error" or "message" in parsed:
            return parsed
    return body.strip()


def unreachable(server: str) -> BackendUnreachable:
    return BackendUnreachable(
        _(
            "Le serveur de modèles {server} est injoignable. Vérifiez qu'il tourne et que "
            "l'adresse est la bonne (elle se termine souvent par /v1), puis réessayez."
        ).format(server=server)
    )


def bad_key(server: str, status: int) -> BackendError:
    return BackendError(
        _(
            "Le serveur {server} refuse la clé d'API ({status}). Vérifiez la clé du serveur "
            "dans Réglages → Général (ou la variable OPENAI_API_KEY)."
        ).format(server=server, status=status)
    )


def model_not_found(server: str, model: str, available: list[str]) -> ModelNotFound:
    listed = ", ".join(available) if available else _("aucun")
    return ModelNotFound(
        _(
            "Le modèle « {model} » est introuvable sur {server}. Modèles servis : {available}."
        ).format(model=model, server=server, available=listed)
    )


def no_api_here(server: str, status: int) -> BackendError:
    return BackendError(
        _(
            "{server} ne répond pas comme une API compatible OpenAI ({status}). L'adresse "
            "doit être celle de l'API, souvent terminée par /v1 (par exemple "
            "http://machine:8000/v1)."
        ).format(server=server, status=status)
    )


def empty_stream(server: str) -> BackendError:
    return BackendError(
        _(
            "Le serveur {server} a répondu sans rien envoyer (réponse vide) : il a échoué "
            "sans le dire, souvent parce que la requête dépasse son contexte. Réduisez "
            "« Contexte du modèle » dans Réglages → Général, ou consultez le journal du serveur."
        ).format(server=server)
    )


def empty_with_tools(server: str) -> ToolsUnsupported:
    """llama.cpp's Python server answers 200 with an empty body to a streamed request with
    tools: treated as a refusal of native tools (the agent then describes them in text)."""
    return ToolsUnsupported(
        _("{server} a renvoyé une réponse vide à une requête avec outils").format(server=server)
    )


def cut(server: str, reason: str) -> StreamCut:
    return StreamCut(
        _("La réponse de {server} a été coupée en cours de route ({reason}).").format(
            server=server, reason=reason
        )
    )


def line_too_long(server: str, limit: int) -> StreamCut:
    return StreamCut(too_long_sentence(server, limit))


def silent(server: str, seconds: float) -> StreamCut:
    return StreamCut(
        _("{server} n'a rien envoyé pendant {n} s : la réponse est abandonnée.").format(
            server=server, n=f"{seconds:g}"
        )
    )


def answered(server: str, status: int, error: Any) -> BackendError:
    """The typed error for an error answer (`status` -1: an error event mid-stream)."""
    text = error_text(error)
    lowered = text.lower()
    if status in (401, 403) or "api key" in lowered or lowered == "unauthorized":
        return bad_key(server, status)
    if status == 400 and any(words in lowered for words in _TOOL_REFUSALS):
        return ToolsUnsupported(text)
    if match := _LLAMA_PY_OVERFLOW.search(text):
        n_prompt, n_ctx = int(match.group(1)), int(match.group(2))
        return ContextOverflow(
            _(
                "La requête (~{prompt} jetons) dépasse le contexte de {n_ctx} jetons avec "
                "lequel le serveur fait tourner le modèle."
            ).format(prompt=n_prompt, n_ctx=n_ctx),
            n_ctx=n_ctx,
            n_prompt=n_prompt,
        )
    typed = answered_error(status, error)
    if isinstance(typed, ContextOverflow):
        if typed.n_ctx is not None and (match := _PROMPT_PART.search(text)):
            # vLLM counts the completion in "you requested": the prompt is the messages part
            typed.n_prompt = int(match.group(1))
        return typed
    if isinstance(typed, ToolsUnsupported):
        return typed
    detail = _short(text)
    if status >= 500:
        return BackendError(
            _("Le serveur {server} a échoué ({status}) : {detail}").format(
                server=server, status=status, detail=detail
            )
        )
    if status > 0:
        return BackendError(
            _("Le serveur {server} a refusé la requête ({status}) : {detail}").format(
                server=server, status=status, detail=detail
            )
        )
    return BackendError(
        _("Le serveur {server} a signalé une erreur : {detail}").format(
            server=server, detail=detail
        )
    )


def is_model_error(error: Any) -> bool:
    """A 404 about the model (not about a wrong path)."""
    text = error_text(error).lower()
    code = str(error.get("code", "")) if isinstance(error, dict) else ""
    return "model" in text or code == "model_not_found"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"
