"""Paths that lead to no plain file, given to the CLI: refused at once in one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.cli_runner import ask_json
from tests.fakes.ollama_server import FakeOllama, Reply


@pytest.mark.timeout(60)  # /dev/zero grew the process to 24 GB; a FIFO waited forever
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_an_image_that_is_no_file_is_refused_at_once(
    ollama: FakeOllama, workspace: Path, loki_home: Path, kind: str
) -> None:
    image = workspace / "shot.png"
    if kind == "device":
        image.symlink_to("/dev/zero")  # what a repository can ship
    else:
        os.mkfifo(image)
    run = ask_json(ollama, workspace, loki_home, "--image", str(image), prompt="Décris")
    assert run.code == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert "shot.png" in run.stderr
    assert "fichier ordinaire" in run.stderr
    assert ollama.chat_requests == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["folder", "nested", "device"])
def test_every_command_runs_with_damaged_settings(
    ollama: FakeOllama, workspace: Path, loki_home: Path, kind: str
) -> None:
    settings = loki_home / "settings.json"
    if kind == "folder":
        settings.mkdir()
    elif kind == "nested":
        settings.write_text('{"a": ' * 1000 + "1" + "}" * 1000)
    else:
        settings.symlink_to("/dev/zero")
    ollama.script(Reply.text("Bonjour."))
    run = ask_json(ollama, workspace, loki_home)
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    notices = [event["message"] for event in run.of_type("notice")]
    assert any("illisible" in n and "mis de côté" in n for n in notices), notices
    assert run.of_type("token")[0]["text"] == "Bonjour."
