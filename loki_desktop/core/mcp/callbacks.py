"""The SDK's client-session callbacks of one connection: the servers' requests in Loki's terms.

`elicitation/create`, `sampling/createMessage` and `roots/list` become the plain values of
core.mcp.host, answered by the ClientSide; the list_changed notifications of tools, prompts
and resources make the connection list them again. Imported by core.mcp.connection only (it
imports `mcp`, which the manager loads at the first start).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcp.client.session import ClientRequestContext
from mcp.types import (
    INVALID_PARAMS,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    Root,
    TextContent,
    ToolListChangedNotification,
)

from loki_desktop.core.mcp.client_side import ClientSide
from loki_desktop.core.mcp.elicitation import ElicitationForm
from loki_desktop.core.mcp.host import ElicitationRequest, SamplingRequest

log = logging.getLogger(__name__)

# MCP's code for a sampling request the user refused (spec, client/sampling "Error Handling")
USER_REJECTED = -1

ListKind = Literal["tools", "prompts", "resources"]


class SessionCallbacks:
    """The callbacks given to one `ClientSession`.

    `serving()` is entered while Loki answers the server (the person filling a form, the
    model writing): the connection stops its call clocks meanwhile, since the server's tool
    is waiting on Loki, not the other way round. `relist(kind)` lists that kind again.
    """

    def __init__(
        self,
        server_id: str,
        label: str,
        client: ClientSide,
        serving: Callable[[], contextlib.AbstractContextManager[None]],
        relist: Callable[[ListKind], Awaitable[None]],
    ) -> None:
        self.server_id = server_id
        self.label = label
        self.client = client
        self.serving = serving
        self.relist = relist

    def as_kwargs(self) -> dict[str, Any]:
        return {
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "list_roots_callback": self.list_roots,
            "message_handler": self.on_message,
        }

    async def elicit(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        if isinstance(params, ElicitRequestFormParams):
            form = ElicitationForm.from_schema(params.requested_schema)
            request = ElicitationRequest(self.server_id, self.label, params.message, form=form)
        else:
            request = ElicitationRequest(self.server_id, self.label, params.message, url=params.url)
        with self.serving():
            answer = await self.client.elicit(request)
        if answer.action != "accept" or request.form is None:
            return ElicitResult(action=answer.action)
        # fields left out get the schema's defaults (SEP-1034), whoever answered
        content, errors = request.form.complete(answer.content or {})
        if errors:  # a host that let an invalid form through: never send it as accepted
            log.warning("elicitation of %s answered with errors: %s", self.server_id, errors)
            return ElicitResult(action="cancel")
        return ElicitResult(action="accept", content=content)

    async def sample(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        if params.tools:
            return ErrorData(code=INVALID_PARAMS, message="Tool use in sampling is not supported.")
        request = _sampling_request(self.server_id, self.label, params)
        with self.serving():
            report = await self.client.sample(request)
        if not report.ok:
            return ErrorData(code=USER_REJECTED, message=report.refused)
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=report.answer),
            model=report.model,
            stop_reason=report.stop_reason,
        )

    async def list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        roots = [Root(uri=uri, name=name) for uri, name in self.client.root_list()]  # type: ignore[arg-type]
        return ListRootsResult(roots=roots)

    async def on_message(self, message: Any) -> None:
        match message:
            case ToolListChangedNotification():
                await self.relist("tools")
            case PromptListChangedNotification():
                await self.relist("prompts")
            case ResourceListChangedNotification():
                await self.relist("resources")
            case _:
                pass  # junk lines are seen by the read stream's watcher; the rest is not ours


def _sampling_request(
    server_id: str, label: str, params: CreateMessageRequestParams
) -> SamplingRequest:
    messages: list[tuple[str, str]] = []
    images = 0
    for message in params.messages:
        texts: list[str] = []
        for block in message.content_as_list:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(str(block.text))  # type: ignore[union-attr]
            elif kind in ("image", "audio"):
                images += 1
                texts.append(f"[{kind} not shown]")
        messages.append((str(message.role), "\n".join(texts)))
    hints = params.model_preferences.hints if params.model_preferences else None
    return SamplingRequest(
        server_id,
        label,
        tuple(messages),
        system_prompt=params.system_prompt or "",
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        stop=tuple(params.stop_sequences or ()),
        model_hints=tuple(h.name for h in hints or () if h.name),
        images=images,
    )
