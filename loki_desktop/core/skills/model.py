"""A skill as the agent uses it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    title: str
    description: str
    body: str
