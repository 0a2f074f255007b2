"""All tools of a turn behind one door: names, untrusted arguments, capped results."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from loki_desktop.core.ports import ToolOutcome, ToolSource, ToolSpec

# summaries remember their facts: a reopened card is worded in the language of now
from loki_desktop.core.said import _
from loki_desktop.core.tools.args import ArgumentError, parse_raw_arguments
from loki_desktop.core.tools.native import fail
from loki_desktop.core.tools.text import cap

log = logging.getLogger(__name__)


class OwningSource(ToolSource, Protocol):
    def owns(self, name: str) -> bool: ...


class Toolbox:
    """Routes a call to the source that owns the tool name.

    Every failure (unknown name, bad arguments, a tool that raises) becomes an
    error outcome for the model; the turn always goes on.
    """

    def __init__(self, sources: Sequence[OwningSource]) -> None:
        self._sources = list(sources)

    async def prepare(self) -> list[str]:
        notices: list[str] = []
        for source in self._sources:
            notices += await source.prepare()
        return notices

    def specs(self) -> list[ToolSpec]:
        return [spec for source in self._sources for spec in source.specs()]

    def names(self) -> list[str]:
        return [spec.name for spec in self.specs()]

    async def call(self, name: str, raw_args: Any) -> ToolOutcome:
        """Run one call, its arguments as the model sent them (an object or a JSON string)."""
        source = next((s for s in self._sources if s.owns(name)), None)
        if source is None:
            known = ", ".join(self.names()) or "none"
            return fail(
                f"unknown tool '{name}'. Available tools: {known}",
                _("outil inconnu : {name}").format(name=name),
            )
        try:
            args = parse_raw_arguments(raw_args)
            outcome = await source.call(name, args)
        except ArgumentError as exc:
            return fail(
                f"invalid arguments for {name}: {exc}",
                _("arguments invalides : {error}").format(error=exc),
            )
        except Exception as exc:  # a tool bug must not end the turn
            log.exception("tool %s failed", name)
            return fail(
                f"{name} failed: {type(exc).__name__}: {exc}",
                _("échec : {error}").format(error=exc),
            )
        return dataclasses.replace(outcome, output=cap(outcome.output))
