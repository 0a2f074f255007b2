"""The code model: a code turn (a code skill was picked for the message) runs on its own model.

One model per turn, decided before the turn starts, never two models conversing: the chat
model answers everything else. Built-in skills whose method writes or changes code are code
skills; a person's own skills are not (the router cannot tell what they are about).
"""

from __future__ import annotations

from loki_desktop.core.skills.model import Skill

# the built-in skills that write, fix or restructure code (skills/*.md)
CODE_SKILLS = frozenset(
    {"creation-web", "debogage-systematique", "refactor-sur", "analyse-donnees"}
)


def is_code_turn(skill: Skill | None) -> bool:
    return skill is not None and skill.name in CODE_SKILLS


def code_turn_model(code_model: str, skill: Skill | None) -> str:
    """The model of this turn when it is a code turn and a code model is set, else ""."""
    return code_model.strip() if code_model.strip() and is_code_turn(skill) else ""
