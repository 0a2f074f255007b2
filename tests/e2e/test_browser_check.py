"""The seeds' browser check, end to end: the real Playwright MCP server and Debian's chromium.

`loki-desktop ask` as a child process, with the catalogue's Playwright on. The scripted model
writes index.html with a script error, opens it at the preview URL it reads in the navigate
tool's description, reads the console, fixes the file, opens it again and reads a clean
console; a screenshot then reaches the (vision) model as an image.

Playwright comes from tests/browser (`make browser`: the pinned version, from the npm
registry); the child runs in that folder, so the catalogue's `npx` finds it there, offline.
CI installs both (.ci/run); elsewhere the test is skipped with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.mcp.catalogue import PLAYWRIGHT_MCP_VERSION, find_chromium
from tests.conftest import PYTHON, REPO, cli_env
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply

BROWSER_FOLDER = REPO / "tests" / "browser"
INSTALLED = BROWSER_FOLDER / "node_modules" / "@playwright" / "mcp" / "package.json"
VISION_MODEL = "gemma3:4b"
MAX_WAITS = 45  # seconds the model waits for the browser to join the turn
NAVIGATE = "mcp_playwright_browser_navigate"
CONSOLE = "mcp_playwright_browser_console_messages"
SCREENSHOT = "mcp_playwright_browser_take_screenshot"

BROKEN = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Compteur</title></head>
<body><h1>Compteur</h1>
<script>document.getElementById("compteur").textContent = "0";</script>
</body></html>
"""
FIXED = BROKEN.replace("<h1>Compteur</h1>", '<h1>Compteur</h1><p id="compteur"></p>')


def _missing() -> str:
    if find_chromium() is None:
        return "no Chromium-family browser (CI installs Debian's chromium: .ci/run)"
    if shutil.which("npx") is None:
        return "npx not found (CI installs Node.js: .ci/run)"
    if not INSTALLED.is_file():
        return "Playwright MCP is not installed in tests/browser (make browser)"
    return ""


pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),  # a browser start on a loaded 2-core CI machine
    pytest.mark.skipif(bool(_missing()), reason=_missing() or "ready"),
]


def test_the_test_installs_the_version_the_catalogue_runs() -> None:
    declared = json.loads((BROWSER_FOLDER / "package.json").read_text())
    assert declared["devDependencies"]["@playwright/mcp"] == PLAYWRIGHT_MCP_VERSION
    assert json.loads(INSTALLED.read_text())["version"] == PLAYWRIGHT_MCP_VERSION


def _tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool["function"] for tool in body.get("tools", [])}


def _told_url(body: dict[str, Any]) -> str:
    """The preview URL, as the model reads it in the navigate tool's description."""
    description = _tools(body)[NAVIGATE]["description"]
    found = re.search(r"served read-only at (http://127\.0\.0\.1:\d+/)", description)
    assert found, description
    return found[1]


class ScriptedModel:
    """The model's steps, one per request. A browser step waits for the browser's tools: the
    server joins the turn once connected (a slow start under load takes more than the 10 s a
    message waits), so until then the model lists the folder, a second apart."""

    def __init__(self, *steps: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        self.steps = list(steps)
        self.waited = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        step = self.steps[0]
        browser_step = callable(step) or any(
            call["function"]["name"].startswith("mcp_") for call in step.tool_calls
        )
        if browser_step and NAVIGATE not in _tools(body) and self.waited < MAX_WAITS:
            self.waited += 1
            time.sleep(1.0)  # polls the condition: the tool list of the next request
            return Reply.tool("list_dir", {"path": "."})
        self.steps.pop(0)
        return step(body) if callable(step) else step


def _open_page(body: dict[str, Any]) -> Reply:
    return Reply.tool(NAVIGATE, {"url": _told_url(body) + "index.html"})


def test_the_model_opens_its_page_reads_the_console_fixes_it_and_sees_it_clean(
    loki_home: Path, workspace: Path
) -> None:
    settings = {
        "mcp_servers": {"playwright": {"enabled": True}},
        "auto_checks": False,
        "max_rounds": 50,  # room for the model's waits while the browser starts
        # the browser's ~20,000 characters of tool schemas need more than Ollama's default
        # 4,096-token context (what Loki now applies when none is set, issue 33)
        "num_ctx": 16384,
    }
    (loki_home / "settings.json").write_text(json.dumps(settings))
    cards = {VISION_MODEL: ModelCard(capabilities=["completion", "tools", "vision"])}
    with FakeOllama(cards=cards) as ollama:
        model = ScriptedModel(
            Reply.tool("write_file", {"path": "index.html", "content": BROKEN}),
            _open_page,
            Reply.tool(CONSOLE, {}),
            Reply.tool("write_file", {"path": "index.html", "content": FIXED}),
            _open_page,
            Reply.tool(CONSOLE, {}),
            Reply.tool(SCREENSHOT, {}),
            Reply.text("La page est corrigée : la console est vide."),
        )
        ollama.script(*[model] * (len(model.steps) + MAX_WAITS))
        started = time.monotonic()
        child = subprocess.run(
            [
                *(PYTHON, "-m", "loki_desktop", "ask", "--json", "--host", ollama.url),
                *("--model", VISION_MODEL, "--workspace", str(workspace)),
                "crée une page compteur puis vérifie-la dans le navigateur",
            ],
            cwd=BROWSER_FOLDER,  # where npx finds the pinned Playwright, with no registry
            env=cli_env(loki_home),
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        seconds = time.monotonic() - started
        requests = ollama.chat_requests
    assert child.returncode == 0, child.stderr[-3000:]
    lines = [json.loads(line) for line in child.stdout.splitlines() if line.strip()]
    notices = [e["message"] for e in lines if e["type"] == "notice"]
    results = [e for e in lines if e["type"] == "tool_result" and e["name"] != "list_dir"]
    assert [r["name"] for r in results] == [
        "write_file",
        NAVIGATE,
        CONSOLE,
        "write_file",
        NAVIGATE,
        CONSOLE,
        SCREENSHOT,
    ], (notices, child.stderr[-2000:])
    assert all(r["ok"] for r in results), results
    # the measure (pytest -s shows it); the waits say how late the browser joined the turn
    print(f"browser check: {seconds:.1f} s for the whole ask, {model.waited} waits")

    url = _told_url(requests[-1])
    tool_texts = [
        m["content"]
        for m in requests[-1]["messages"]
        if m["role"] == "tool" and m.get("tool_name") != "list_dir"
    ]
    first_open, first_console, second_open, second_console = (
        tool_texts[1],
        tool_texts[2],
        tool_texts[4],
        tool_texts[5],
    )
    assert f"{url}index.html" in first_open  # the page, through the preview, not file://
    assert "Errors: 1," in first_console  # the script's error, and only it (no favicon 404)
    assert "TypeError: Cannot set properties of null" in first_console
    assert "Errors: 0," in second_console, second_console
    assert "TypeError" not in second_open
    # the screenshot: an image for the vision model, not only its placeholder
    last_tool = [m for m in requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert last_tool.get("images"), last_tool
    assert (workspace / "index.html").read_text() == FIXED
    # Playwright's files went to Loki's data folder, not to its working directory
    assert not (BROWSER_FOLDER / ".playwright-mcp").exists()
    assert not (workspace / ".playwright-mcp").exists()
    assert any((loki_home / "playwright-output").iterdir())
