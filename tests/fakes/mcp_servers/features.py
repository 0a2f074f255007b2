"""An MCP server that uses the client's own features: elicitation, sampling, roots, prompts,
resources and tools/list_changed. stdio (or --http PORT).

    python tests/fakes/mcp_servers/features.py

Tools
    register        a form (name: required string; age: integer 0-150, default 30; colour:
                    titled single-select, default "green"; news: boolean, default true;
                    topics: multi-select), returns the action and the content as JSON
    visit           a URL-mode elicitation of https://example.org/consent; returns the action
    summarize       asks the client's model (sampling/createMessage) to summarise `text`, with
                    a system prompt and maxTokens 64; returns the model's text, or the error
    roots           asks the client for its roots (roots/list); returns the URIs as JSON
    add_tool        adds the tool `late` and says so (notifications/tools/list_changed)
    confirm         asks a yes/no form through the SDK's resolvers (`Resolve` + `Elicit`),
                    which work on both protocols: standalone requests up to 2025-11-25, an
                    `InputRequiredResult` the client answers and retries on 2026-07-28
                    (run it behind modern_only.py for that)
Prompts: `review` (arguments: code required, language optional), `hello` (no argument).
Resources: notes://readme (text), notes://logo (a PNG).

Every `notifications/roots/list_changed` it receives makes it list the roots again; when
FEATURES_LOG names a file, each such list is appended to it as one JSON line
{"roots_changed": [...uris]} (tests read it: the server really received the notification).
The shapes follow the SDK's own server API (mcp.server.session, MCPServer's decorators).
"""

from __future__ import annotations

import io
import json
import os
import warnings
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, Resolve
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import ModelHint, ModelPreferences, SamplingMessage, TextContent
from pydantic import BaseModel
from serve import serve  # a sibling module: this script runs as a file

# sampling and roots are deprecated in the 2026 protocol; this server speaks 2025-11-25
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

REGISTER_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Nom",
            "description": "Votre nom complet",
            "minLength": 2,
        },
        "age": {"type": "integer", "title": "Âge", "minimum": 0, "maximum": 150, "default": 30},
        "colour": {
            "type": "string",
            "title": "Couleur",
            "oneOf": [
                {"const": "red", "title": "Rouge"},
                {"const": "green", "title": "Vert"},
                {"const": "blue", "title": "Bleu"},
            ],
            "default": "green",
        },
        "news": {"type": "boolean", "title": "Nouvelles", "default": True},
        "topics": {
            "type": "array",
            "title": "Sujets",
            "items": {"type": "string", "enum": ["python", "rust", "web"]},
        },
    },
    "required": ["name", "colour"],
}


class RootsWatcher:
    """Middleware (MCPServer's public `middleware`): on roots/list_changed, list them again."""

    async def __call__(self, ctx, call_next):  # type: ignore[no-untyped-def]
        result = await call_next(ctx)
        if ctx.method == "notifications/roots/list_changed":
            roots = await ctx.session.list_roots()
            _log({"roots_changed": [str(root.uri) for root in roots.roots]})
        return result


def _log(entry: dict[str, object]) -> None:
    path = os.environ.get("FEATURES_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


server = MCPServer("features", log_level="WARNING", middleware=[RootsWatcher()])


@server.tool()
async def register(ctx: Context) -> str:
    """Ask the person to register (a form)."""
    result = await ctx.session.elicit_form(
        "Inscrivez-vous pour continuer.", REGISTER_SCHEMA, related_request_id=ctx.request_id
    )
    return json.dumps({"action": result.action, "content": result.content}, sort_keys=True)


@server.tool()
async def visit(ctx: Context) -> str:
    """Ask the person to open a page (URL mode)."""
    result = await ctx.elicit_url(
        "Autorisez l'accès sur la page du service.", "https://example.org/consent", "consent-1"
    )
    return result.action


@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Ask the client's model for a one-line summary of `text`."""
    try:
        result = await ctx.session.create_message(
            [
                SamplingMessage(
                    role="user", content=TextContent(type="text", text=f"Summarize: {text}")
                )
            ],
            max_tokens=64,
            system_prompt="You summarise in one line.",
            model_preferences=ModelPreferences(hints=[ModelHint(name="claude-3-haiku")]),
            related_request_id=ctx.request_id,
        )
    except MCPError as exc:
        return f"refused: {exc.error.message}"
    content = result.content
    text_out = content.text if isinstance(content, TextContent) else str(content)
    return f"model {result.model} said: {text_out}"


@server.tool()
async def roots(ctx: Context) -> str:
    """The client's roots."""
    listed = await ctx.session.list_roots()
    return json.dumps([str(root.uri) for root in listed.roots])


def late() -> str:
    """A tool that did not exist at the start."""
    return "late tool here"


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Add the tool `late`, and tell the client its tools changed."""
    server.add_tool(late)
    await ctx.session.send_tool_list_changed()
    return "added"


class Confirmation(BaseModel):
    ok: bool


def ask_confirmation() -> Elicit[Confirmation]:
    return Elicit("Confirmez-vous ?", Confirmation)


@server.tool()
def confirm(
    answer: Annotated[ElicitationResult[Confirmation], Resolve(ask_confirmation)],
) -> str:
    """Ask the person to confirm (a form, on either protocol)."""
    data = getattr(answer, "data", None)
    return f"{answer.action} ok={getattr(data, 'ok', None)}"


@server.prompt(title="Relecture de code")
def review(code: str, language: str = "python") -> str:
    """Review a piece of code."""
    return f"Please review this {language} code:\n{code}"


@server.prompt()
def hello() -> str:
    """Say hello."""
    return "Hello from the features server."


@server.resource("notes://readme", name="readme", title="Lisez-moi", mime_type="text/plain")
def readme() -> str:
    return "The project notes: build with make, test with pytest."


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


@server.resource("notes://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return _png()


@server.tool()
def links() -> list[Any]:
    """Point at a resource instead of inlining it (the 'everything' server's get-resource-links)."""
    from mcp.types import ResourceLink, TextContent

    return [
        TextContent(type="text", text="The notes are in a resource:"),
        ResourceLink(type="resource_link", uri="notes://readme", name="readme"),
    ]


@server.resource("notes://day/{date}", name="day", title="Notes du jour", mime_type="text/plain")
def day(date: str) -> str:
    return f"Notes of {date}: nothing yet."


if __name__ == "__main__":
    serve(server)
