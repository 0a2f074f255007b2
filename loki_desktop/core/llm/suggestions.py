"""A short, honest list of first models for this machine, with what each is good at.

Sizes are the download sizes of Ollama's library (ollama.com/library, default quantization)
when this list was written; the pull itself shows the real figure. A model needs about its
size plus room for the context in memory: it "fits the GPU" when that is in the GPU's
memory, "runs on the processor" (slower) when only the RAM holds it, and is not offered
otherwise. Models without native tools still get tools in Loki (prompted tools).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.machine import GIB, Machine

Fit = Literal["gpu", "cpu"]
CONTEXT_ROOM = 1.5 * GIB  # the KV cache of an 8k context and the runtime, on top of the weights
RAM_SHARE = 0.7  # the rest of the RAM is for the system and the other programs
MAX_SUGGESTIONS = 5


@dataclass(frozen=True, slots=True)
class ModelSuggestion:
    name: str
    download: int  # bytes
    strengths: tuple[str, ...]  # "code", "général", "vision", "raisonnement"
    native_tools: bool
    summary: str


@dataclass(frozen=True, slots=True)
class FittingModel:
    model: ModelSuggestion
    fit: Fit


def catalogue() -> tuple[ModelSuggestion, ...]:
    """Best first: the order in which they are proposed when several fit."""
    gb = 1000**3
    return (
        ModelSuggestion(
            "qwen3:8b",
            int(5.2 * gb),
            ("général", "code", "raisonnement"),
            True,
            _("Le meilleur point de départ : outils natifs, réflexion réglable, bon en code."),
        ),
        ModelSuggestion(
            "qwen3:14b",
            int(9.3 * gb),
            ("général", "code", "raisonnement"),
            True,
            _("Plus capable que le 8B, pour une machine qui a la mémoire."),
        ),
        ModelSuggestion(
            "qwen2.5-coder:7b",
            int(4.7 * gb),
            ("code",),
            True,
            _("Spécialiste du code, outils natifs, sans réflexion : rapide."),
        ),
        ModelSuggestion(
            "gemma3:12b",
            int(8.1 * gb),
            ("général", "vision"),
            False,
            _("Voit les images ; outils donnés par Loki (pas d'outils natifs)."),
        ),
        ModelSuggestion(
            "gemma3:4b",
            int(3.3 * gb),
            ("général", "vision"),
            False,
            _("Petit modèle qui voit les images ; outils donnés par Loki."),
        ),
        ModelSuggestion(
            "qwen3:4b",
            int(2.5 * gb),
            ("général", "raisonnement"),
            True,
            _("Petit et rapide, outils natifs : pour une machine modeste."),
        ),
        ModelSuggestion(
            "llama3.2:3b",
            int(2.0 * gb),
            ("général",),
            True,
            _("Très léger, outils natifs ; limité sur les tâches longues."),
        ),
    )


def needed_memory(model: ModelSuggestion) -> float:
    return model.download * 1.1 + CONTEXT_ROOM


def fitting_models(machine: Machine, limit: int = MAX_SUGGESTIONS) -> list[FittingModel]:
    """The catalogue's models this machine can run, best first, GPU fits before CPU ones."""
    found: list[FittingModel] = []
    for model in catalogue():
        need = needed_memory(model)
        if machine.gpu_memory and need <= machine.gpu_memory:
            found.append(FittingModel(model, "gpu"))
        elif machine.ram is None or need <= machine.ram * RAM_SHARE:
            found.append(FittingModel(model, "cpu"))
    found.sort(key=lambda fitting: fitting.fit != "gpu")  # stable: keeps the order within
    return found[:limit]


def fit_text(fit: Fit, machine: Machine) -> str:
    if fit == "gpu":
        return _("tient dans le GPU")
    if machine.ram is None:
        return _("mémoire inconnue : à essayer")
    return _("sur le processeur (plus lent)")


def strengths_text(model: ModelSuggestion) -> str:
    labels = {
        "général": _("général"),
        "code": _("code"),
        "vision": _("images"),
        "raisonnement": _("raisonnement"),
    }
    return ", ".join(labels.get(item, item) for item in model.strengths)
