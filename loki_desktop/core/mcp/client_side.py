"""Loki's side of every connection of one manager: who answers the servers' own requests.

Shared by the manager's connections: the host (the window or the terminal), the sampler
(the person's model), each server's sampling policy, and the roots (the workspace folder).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.host import (
    DEFAULT_SAMPLING,
    ElicitationAnswer,
    ElicitationRequest,
    McpHost,
    SamplingPolicy,
    SamplingReport,
    SamplingRequest,
)
from loki_desktop.core.mcp.sampling import Sampler

log = logging.getLogger(__name__)


class ClientSide:
    """What the servers' requests reach. With no host, elicitations are declined and
    sampling is refused; with no workspace, the root list is empty."""

    def __init__(self) -> None:
        self.host: McpHost | None = None
        self.sampler: Sampler | None = None
        self.roots: tuple[Path, ...] = ()
        self.policies: dict[str, SamplingPolicy] = {}
        # False: every server counts as "never" (`ask` without --allow-sampling)
        self.allow_sampling = True

    def set_policies(self, policies: Mapping[str, SamplingPolicy]) -> None:
        self.policies = dict(policies)

    def policy(self, server_id: str) -> SamplingPolicy:
        if not self.allow_sampling:
            return "never"
        return self.policies.get(server_id, DEFAULT_SAMPLING)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        if self.host is None:
            return ElicitationAnswer("decline")
        return await self.host.elicit(request)

    async def sample(self, request: SamplingRequest) -> SamplingReport:
        if self.sampler is None:
            return SamplingReport(
                request, refused=_("Loki ne peut pas répondre ici aux demandes de modèle.")
            )
        if not self.allow_sampling:
            # the server's own policy may well be "ask": the cause is the missing flag
            return self.sampler.refuse(
                request,
                _(
                    "Le serveur « {name} » a demandé une réponse à votre modèle : refusé, "
                    "la commande n'a pas reçu --allow-sampling."
                ).format(name=request.server_label),
            )
        return await self.sampler.answer(request, self.policy(request.server_id))

    def root_list(self) -> list[tuple[str, str]]:
        """(file:// URI, name) of each root."""
        return [(path.resolve().as_uri(), path.name or str(path)) for path in self.roots]
