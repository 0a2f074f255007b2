"""The harness variants an evaluation compares: all of Loki, none of it, or all but one part.

"on" is the whole harness: skills, checks and their fix pass, text-form call recovery,
prompted tools, compaction, memories, and the plan step and self-review (which the app
leaves off by default: the eval is how a person sees whether they help on their model).
"off" is a plain chat with native tools. "memory-off", "plan-off" and "review-off" are "on"
without that one part, so each part's worth is the difference with "on".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

Harness = Literal["on", "off", "memory-off", "plan-off", "review-off"]
HARNESSES: tuple[Harness, ...] = get_args(Harness)
# what `--harness` accepts: the variants, and "both" (on and off)
HARNESS_CHOICES = ("both", *HARNESSES)


@dataclass(frozen=True, slots=True)
class Parts:
    """What one variant turns on."""

    harness: bool  # skills, checks, text calls, prompted tools, compaction
    memory: bool
    plan: bool
    review: bool


def parts(mode: Harness) -> Parts:
    if mode == "off":
        return Parts(harness=False, memory=False, plan=False, review=False)
    return Parts(
        harness=True,
        memory=mode != "memory-off",
        plan=mode != "plan-off",
        review=mode != "review-off",
    )


def modes_of(choices: Iterable[str]) -> list[Harness]:
    """The variants `--harness` asked for, in the order given, each once ("both": on, off;
    nothing: on and off)."""
    modes: list[Harness] = []
    for choice in choices or ["both"]:
        for mode in ("on", "off") if choice == "both" else (choice,):
            if mode in HARNESSES and mode not in modes:
                modes.append(mode)
    return modes
