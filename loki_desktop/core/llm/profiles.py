"""Model profiles: what /api/show says a model can do, read once per model and host.

The shapes are Ollama's (docs/api, docs/capabilities/thinking): `capabilities` is a list
of words ("completion", "tools", "thinking", "vision", "embedding", "insert"...),
`thinking` an object `{"values": [...], "default": ...}` on models with thinking
controls, `details` carries family / parameter_size / quantization_level, and
`model_info` has `<architecture>.context_length`. An old server sends no capabilities:
the profile is then "assumed" (tools yes, thinking and vision no).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.llm.context_size import modelfile_num_ctx
from loki_desktop.core.llm.template import read_template
from loki_desktop.core.ports import ChatBackend, ImageProbe, ModelProfile, ThinkValue


def parse_profile(name: str, shown: Any) -> ModelProfile:
    """The profile of `name` from an /api/show answer (any shape: bad parts are ignored)."""
    if not isinstance(shown, dict):
        return ModelProfile.assumed(name)
    raw_details = shown.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    raw_caps = shown.get("capabilities")
    caps = (
        frozenset(str(c) for c in raw_caps if isinstance(c, str))
        if isinstance(raw_caps, list)
        else None
    )
    values, default = _thinking(shown.get("thinking"))
    template = read_template(shown.get("template"))
    profile = ModelProfile(
        name=name,
        capabilities=caps if caps else ModelProfile.assumed(name).capabilities,
        think_values=values,
        think_default=default,
        family=str(details.get("family") or ""),
        parameter_size=str(details.get("parameter_size") or ""),
        quantization=str(details.get("quantization_level") or ""),
        context_length=_context_length(shown.get("model_info")),
        known=bool(caps),
        modelfile_ctx=modelfile_num_ctx(shown.get("parameters")),
        system_slot=template.system,
        chat_template=template.chat,
    )
    return profile


def _thinking(raw: Any) -> tuple[tuple[ThinkValue, ...], ThinkValue | None]:
    if not isinstance(raw, dict):
        return (), None
    values = raw.get("values")
    kept: tuple[ThinkValue, ...] = (
        tuple(v for v in values if isinstance(v, bool | str)) if isinstance(values, list) else ()
    )
    default = raw.get("default")
    return kept, default if isinstance(default, bool | str) else None


def _context_length(info: Any) -> int | None:
    if not isinstance(info, dict):
        return None
    for key, value in info.items():
        # bool is an int: `true` is no length
        if key.endswith(".context_length") and type(value) is int and value > 0:
            return value
    return None


@dataclass
class ModelProfiles:
    """Profiles by host and model, asked once; what the server refused is remembered.

    A server that answers 400 "does not support tools" (or "... thinking") for a model
    whose profile claimed it gets that capability struck from the cached profile, so the
    next request goes the right way at once.
    """

    _known: dict[tuple[str, str], ModelProfile] = field(default_factory=dict)
    _told: set[tuple[str, str, str]] = field(default_factory=set)

    def tell_once(self, host: str, model: str, what: str) -> bool:
        """True the first time `what` is said about this model (for the session)."""
        key = (host, model, what)
        if key in self._told:
            return False
        self._told.add(key)
        return True

    async def get(self, backend: ChatBackend, model: str) -> ModelProfile:
        """The model's profile (asked the first time). Raises BackendError when the
        server cannot be reached (nothing is remembered then)."""
        key = (backend.host, model)
        if key not in self._known:
            self._known[key] = await backend.model_profile(model)
        return self._known[key]

    def peek(self, host: str, model: str) -> ModelProfile | None:
        """The cached profile, without asking."""
        return self._known.get((host, model))

    async def takes_images(self, backend: ChatBackend, model: str) -> bool:
        """Whether `model` reads images: its profile says so; or, on a server that does not
        say (ImageProbe), the server accepted an image for it (asked once, then remembered
        in the profile)."""
        profile = await self.get(backend, model)
        if profile.vision:
            return True
        if profile.known or not isinstance(backend, ImageProbe):
            return False
        if not await backend.accepts_images(model):
            return False
        self._known[(backend.host, model)] = dataclasses.replace(
            profile, capabilities=profile.capabilities | {"vision"}
        )
        return True

    def strike(self, host: str, model: str, capability: str) -> None:
        """Remember that the server refused `capability` for this model."""
        profile = self._known.get((host, model)) or ModelProfile.assumed(model)
        self._known[(host, model)] = dataclasses.replace(
            profile, capabilities=profile.capabilities - {capability}
        )


async def describe(
    backend: ChatBackend, profiles: ModelProfiles, names: Sequence[str]
) -> list[ModelProfile]:
    """The profiles of `names`, asked together (each once per host). Raises BackendError
    when the server cannot be reached."""
    return list(await asyncio.gather(*(profiles.get(backend, name) for name in names)))


def capability_marks(profile: ModelProfile) -> list[str]:
    """Short words for what the model can do, for people (the CLI's `models` list)."""
    if not profile.for_chat:
        return [_("embeddings seulement (pas pour la conversation)")]
    marks = []
    if profile.tools:
        marks.append(_("outils"))
    elif profile.known:
        marks.append(_("outils décrits"))
    if profile.thinking:
        levels = profile.think_levels
        marks.append(_("réflexion") + (f" ({'/'.join(levels)})" if levels else ""))
    if profile.vision:
        marks.append(_("vision"))
    if profile.chat_template is False:
        marks.append(_("pas fait pour la conversation (modèle de base)"))
    elif profile.system_slot is False:
        marks.append(_("consignes dans le premier message"))
    if not profile.known:
        marks.append(_("capacités inconnues"))
    return marks


def profile_json(profile: ModelProfile) -> dict[str, Any]:
    """The `models --json` shape of a profile."""
    thinking = (
        {"values": list(profile.think_values), "default": profile.think_default}
        if profile.think_values or profile.think_default is not None
        else None
    )
    return {
        "name": profile.name,
        "capabilities": sorted(profile.capabilities),
        "known": profile.known,
        "chat": profile.for_chat,
        "tools": profile.tools,
        "thinking": thinking,
        "vision": profile.vision,
        "family": profile.family,
        "parameter_size": profile.parameter_size,
        "quantization": profile.quantization,
        "context_length": profile.context_length,
        "num_ctx": profile.modelfile_ctx,
        "system_slot": profile.system_slot,
        "chat_template": profile.chat_template,
    }
