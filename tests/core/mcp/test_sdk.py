"""How we use the MCP SDK: its public modules only, and servers of both protocol eras."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from loki_desktop.core.mcp import connection
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import stdio
from tests.fakes.mcp_servers import processes_tagged

pytestmark = pytest.mark.usefixtures("no_zombies")


def test_no_private_sdk_module_is_imported() -> None:
    # `mcp>=2.3,<3` lets a minor release move or drop any `_module` of the SDK.
    tree = ast.parse(Path(connection.__file__).read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
    sdk = [name for name in imported if name.split(".")[0] == "mcp"]
    assert sdk  # the check sees the SDK imports...
    assert [name for name in sdk if any(part.startswith("_") for part in name.split("."))] == []


async def test_a_server_of_the_2026_protocol_only_connects(
    secrets: KeyringSecrets, tag: str
) -> None:
    manager = McpManager({"modern": stdio("modern", "modern_only", tag=tag)}, secrets)
    try:
        assert await manager.prepare() == []
        assert manager.status("modern").state == "connected"
        outcome = await manager.call("mcp_modern_echo", {"text": "2026"})
        assert (outcome.ok, outcome.output) == (True, "echo: 2026")
    finally:
        await manager.aclose()
    assert processes_tagged(tag) == []
