"""Free when off: with every server disabled the `mcp` package is never imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import REPO
from tests.fakes.mcp_servers import script

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from loki_desktop.core.mcp.manager import McpManager
    from loki_desktop.core.mcp.service import McpService
    from loki_desktop.persistence.settings_file import SettingsFile
    from loki_desktop.persistence.secrets import KeyringSecrets

    def mcp_loaded():
        return any(m == "mcp" or m.startswith("mcp.") for m in sys.modules)

    async def turn(raw):
        manager = McpManager.from_settings(raw, KeyringSecrets())
        notices = await manager.prepare()
        names = [spec.name for spec in manager.specs()]
        await manager.aclose()
        return notices, names

    raw = json.loads(sys.argv[1])
    service = McpService(SettingsFile(__import__("pathlib").Path(sys.argv[2])), KeyringSecrets())
    views = [(v.id, v.status.state) for v in service.servers()]
    off = asyncio.run(turn({k: {**v, "enabled": False} for k, v in raw.items()}))
    after_off = mcp_loaded()
    on = asyncio.run(turn(raw))
    print(json.dumps({"views": views, "off": off, "after_off": after_off,
                      "on": on, "after_on": mcp_loaded()}))
    """
)


def test_mcp_is_imported_only_when_a_server_is_on(tmp_path: Path) -> None:
    import json

    raw = {"echo": {"enabled": True, "command": [sys.executable, script("echo")]}}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(raw), str(tmp_path / "settings.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["views"]) == 4
    assert result["off"] == [[], []]
    assert result["after_off"] is False
    assert "mcp_echo_echo" in result["on"][1]  # the same check does see a real import
    assert result["after_on"] is True
