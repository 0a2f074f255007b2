"""How one turn talks to its model: native, prompted or no tools, and which `think` it sends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.thinking import think_value
from loki_desktop.core.ports import ModelProfile, ThinkValue

ToolMode = Literal["native", "prompted", "none"]


@dataclass
class ModelMode:
    """The turn's choices for its model; they change if the server refuses one."""

    profile: ModelProfile
    tools: ToolMode
    forced: bool  # the person chose the tool mode for this model (no fallback then)
    think: ThinkValue | None


def resolve_mode(profile: ModelProfile, think_mode: str, tool_modes: dict[str, str]) -> ModelMode:
    """The mode for `profile` from the Réflexion setting and the per-model tool setting."""
    chosen = tool_modes.get(profile.name, "auto")
    if chosen in ("native", "prompted", "none"):
        tools: ToolMode = chosen  # type: ignore[assignment]  # narrowed by the test above
        forced = True
    else:
        tools, forced = ("native" if profile.tools else "prompted"), False
    return ModelMode(profile, tools, forced, think_value(think_mode, profile))


def prompted_notice(model: str) -> str:
    return _(
        "« {model} » n'a pas d'appels d'outils natifs : Loki lui décrit les outils dans ses "
        "consignes et lit ses appels dans le texte."
    ).format(model=model)


def tools_refused_message(model: str, detail: str) -> str:
    return _(
        "Le serveur refuse les outils natifs pour « {model} » ({detail}). Choisissez "
        "« Outils décrits dans les consignes » pour ce modèle dans les réglages."
    ).format(model=model, detail=detail)


def thinking_refused_notice(model: str) -> str:
    return _(
        "Le serveur dit que « {model} » ne sait pas réfléchir : la Réflexion est ignorée "
        "pour ce modèle."
    ).format(model=model)


# vision models to suggest when none of the server's is known (Ollama library names)
KNOWN_VISION = ("gemma3", "qwen2.5vl", "llama3.2-vision")
SUGGESTED_AT_MOST = 3


def family(model: str) -> str:
    """ "gemma3:4b" -> "gemma3", "registry/user/llava:7b" -> "llava"."""
    return model.split(":")[0].rsplit("/", 1)[-1].lower()


def vision_suggestions(model: str, installed: Sequence[str] = ()) -> list[str]:
    """The vision models to offer instead of `model`: those of the server (`installed`, the
    models it has that read images) first, then well-known ones of another family; never
    `model` itself nor its own family (gemma3 is no advice to a gemma3:4b user)."""
    own = family(model)
    offered = [name for name in installed if name != model and family(name) != own]
    families = {family(name) for name in offered}
    offered += [name for name in KNOWN_VISION if name != own and name not in families]
    return offered[:SUGGESTED_AT_MOST]


def no_vision_message(model: str, installed: Sequence[str] = ()) -> str:
    return _(
        "« {model} » ne lit pas les images : rien n'a été envoyé. Retirez les images ou "
        "choisissez un modèle qui voit (par exemple {models})."
    ).format(model=model, models=", ".join(vision_suggestions(model, installed)))


def not_for_chat_message(model: str) -> str:
    return _(
        "« {model} » est un modèle d'embeddings : il ne sait pas converser. Choisissez un "
        "autre modèle."
    ).format(model=model)


def unknown_context_notice(model: str, assumed: int) -> str:
    return _(
        "Le serveur ne donne pas la taille de contexte de « {model} » : Loki suppose {n} "
        "jetons. Si le modèle en a moins, réglez « Contexte du modèle » dans Réglages → "
        "Général (num_ctx dans settings.json)."
    ).format(model=model, n=assumed)


def system_folded_notice(model: str) -> str:
    return _(
        "Le gabarit de « {model} » n'a pas de place pour des consignes : Loki met les siennes "
        "(et la description des outils) au début du premier message."
    ).format(model=model)


def base_model_notice(model: str) -> str:
    return _(
        "« {model} » n'a pas de gabarit de conversation (c'est un modèle de base) : il n'est "
        "pas fait pour converser et risque de continuer le texte au lieu de répondre. "
        "Choisissez plutôt une version « instruct » ou « chat »."
    ).format(model=model)


def no_tool_used_notice() -> str:
    return _(
        "Le modèle n'a utilisé aucun outil : rien n'a été écrit ni lancé, même si sa réponse "
        "le décrit."
    )


def empty_answer_message() -> str:
    return _("Le modèle n'a rien répondu. Réessayez, ou reformulez votre message.")


def empty_after_tools_notice() -> str:
    return _("Le modèle n'a rien répondu après ses appels d'outils.")
