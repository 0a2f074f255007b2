"""A real .mcpb bundle for the tests: spec 0.3's API example, running the echo test server.

The manifest's shape follows the MCPB spec (modelcontextprotocol/mcpb, MANIFEST.md, 0.3):
`server.type`, `entry_point`, `mcp_config` with `${__dirname}` and `${user_config.KEY}`, and a
`user_config` with one sensitive, required value.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

from tests.fakes.mcp_servers import script

SECRET = "bundle-secret-7f3a91"


def manifest(**changes: Any) -> dict[str, Any]:
    """The manifest of spec 0.3's API example, running the echo test server."""
    data: dict[str, Any] = {
        "manifest_version": "0.3",
        "name": "Echo Bundle",
        "version": "1.2.0",
        "description": "Echoes, for the tests",
        "author": {"name": "Loki tests"},
        "server": {
            "type": "python",
            "entry_point": "server/echo.py",
            "mcp_config": {
                "command": sys.executable,
                "args": ["${__dirname}/server/echo.py"],
                "env": {"API_KEY": "${user_config.api_key}", "REGION": "${user_config.region}"},
            },
        },
        "tools": [{"name": "echo", "description": "Echo"}, {"name": "env"}],
        "user_config": {
            "api_key": {
                "type": "string",
                "title": "API Key",
                "description": "Your API key",
                "sensitive": True,
                "required": True,
            },
            "region": {"type": "string", "title": "Region", "default": "eu"},
        },
    }
    data.update(changes)
    return data


def pack(path: Path, data: Any, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", data if isinstance(data, str) else json.dumps(data))
        for name in ("echo", "serve"):
            archive.write(script(name), f"server/{name}.py")
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return path
