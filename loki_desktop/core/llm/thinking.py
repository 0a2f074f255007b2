"""The Réflexion setting in Ollama's terms: which `think` value a request carries, if any.

Ollama's rules (docs/capabilities/thinking): `think` true/false turns reasoning on/off,
a string picks a level the model lists in /api/show's `thinking.values`, and an absent
`think` keeps the model's default. A level the model does not list is silently
replaced by the default, and `think: true` to a model without the `thinking` capability
is an HTTP 400: so nothing is sent that the profile does not allow.
"""

from __future__ import annotations

from loki_desktop.core.ports import ModelProfile, ThinkValue
from loki_desktop.core.settings import THINK_MODES

# The levels thinking models name today (gpt-oss); a model may list others.
USUAL_LEVELS = ("low", "medium", "high")


def think_choices(profile: ModelProfile) -> tuple[str, ...]:
    """The Réflexion choices that mean something for this model, in menu order.

    "auto" always; "off" and "on" for a thinking model; its named levels when it lists
    some (gpt-oss: low, medium, high), in place of "on".
    """
    if not profile.thinking:
        return ("auto",)
    levels = profile.think_levels
    if levels:
        return ("auto", "off", *levels)
    choices = ["auto"]
    if not profile.think_values or False in profile.think_values:
        choices.append("off")
    choices.append("on")
    return tuple(choices)


def think_value(mode: str, profile: ModelProfile) -> ThinkValue | None:
    """The `think` to send for the Réflexion setting `mode` (None: leave it out).

    A level name goes only to a model that lists it; a usual level (low, medium, high)
    to a thinking model without levels means "on"; anything else leaves the model's
    default (nothing is sent).
    """
    if mode == "auto" or not profile.thinking:
        return None
    values = profile.think_values
    if mode == "off":
        # documented for boolean models and for gpt-oss's levels alike
        if not values or False in values or profile.think_levels:
            return False
        return None  # the model lists no way to turn it off
    if mode == "on":
        return True
    if mode in profile.think_levels:
        return mode
    if not profile.think_levels and mode in USUAL_LEVELS:
        return True
    return None


def valid_mode(mode: str) -> bool:
    """A Réflexion value the settings may hold (a level name is checked per model later)."""
    return mode in THINK_MODES or (mode.isascii() and mode.isalpha() and len(mode) <= 20)
