"""Issue 12 end to end through `ask --json` and `models`: the models people actually run."""

from __future__ import annotations

import base64
import json
import subprocess
import threading
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import PYTHON, REPO, cli_env
from tests.e2e.cli_runner import ask_json, run_cli
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply

QWEN3 = ModelCard.thinker(family="qwen3")
GPT_OSS = ModelCard.thinker("low", "medium", "high", family="gptoss")
GEMMA3 = ModelCard.no_tools("vision", family="gemma3")
CALL = {"name": "write_file", "arguments": {"path": "hi.py", "content": "print(1)\n"}}
WRITE = f"<tool_call>\n{json.dumps(CALL)}\n</tool_call>"


def _png(path: Path, size: tuple[int, int] = (32, 32)) -> Path:
    Image.new("RGB", size, (0, 128, 255)).save(path, "PNG")
    return path


def test_the_first_thinking_event_comes_before_the_reasoning_ends(
    workspace: Path, loki_home: Path
) -> None:
    gate = threading.Event()  # the server holds the rest until the test read the first line
    with FakeOllama(models=(), cards={"qwen3:8b": QWEN3}) as server:
        server.script(
            Reply.thinks(["Je compte", " les r."], "<thi", "nk>encore</thi", "nk>3 r.", gate=gate)
        )
        child = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "loki_desktop",
                "ask",
                "Combien ?",
                "--json",
                "--host",
                server.url,
                "--model",
                "qwen3:8b",
                "--think",
                "off",
                "--workspace",
                str(workspace),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=cli_env(loki_home),
        )
        try:
            assert child.stdout is not None
            first = json.loads(child.stdout.readline())
            gate.set()
            rest, errors = child.communicate(timeout=60)
        finally:
            gate.set()
            if child.poll() is None:
                child.kill()
                child.wait()
    assert child.returncode == 0, errors
    assert first == {"type": "thinking", "text": "Je compte"}
    events = [first, *(json.loads(line) for line in rest.splitlines())]
    assert [e["text"] for e in events if e["type"] == "thinking"] == [
        "Je compte",
        " les r.",
        "encore",
    ]
    assert "".join(e["text"] for e in events if e["type"] == "token") == "3 r."
    assert server.chat_requests[0]["think"] is False


def test_think_levels_go_only_to_a_model_that_lists_them(workspace: Path, loki_home: Path) -> None:
    with FakeOllama(models=(), cards={"gpt-oss:20b": GPT_OSS, "qwen3:8b": QWEN3}) as server:
        server.script(Reply.text("a"), Reply.text("b"))
        for model in ("gpt-oss:20b", "qwen3:8b"):
            run = ask_json(server, workspace, loki_home, "--model", model, "--think", "low")
            assert run.code == 0, run.stderr
        bad = ask_json(server, workspace, loki_home, "--think", "très")
    assert [b["think"] for b in server.chat_requests] == ["low", True]
    assert bad.code == 2
    assert "--think" in bad.stderr


def test_plain_ask_prints_reasoning_only_when_asked(workspace: Path, loki_home: Path) -> None:
    with FakeOllama(models=(), cards={"qwen3:8b": QWEN3}) as server:
        server.script(Reply.thinks(["pensée"], "Réponse"), Reply.thinks(["pensée"], "Réponse"))
        base = ("ask", "Q", "--host", server.url, "--workspace", str(workspace))
        quiet = run_cli(*base, home=loki_home)
        shown = run_cli(*base, "--show-thinking", home=loki_home)
    assert quiet.stdout == "Réponse\n"
    assert "pensée" not in quiet.stderr
    assert shown.stdout == "Réponse\n"
    assert "pensée" in shown.stderr  # a pipe: no escape codes, the words alone


@pytest.mark.parametrize(
    "card",
    [GEMMA3, ModelCard(refuse_tools=True), ModelCard(show_status=500, capabilities=["completion"])],
)
def test_a_model_without_native_tools_writes_the_file_through_the_prompt(
    workspace: Path, loki_home: Path, card: ModelCard
) -> None:
    with FakeOllama(models=(), cards={"m:4b": card}) as server:
        server.script(Reply.text(WRITE), Reply.text("Fait."))
        run = ask_json(server, workspace, loki_home, "--model", "m:4b", prompt="Écris hi.py")
    assert run.code == 0, run.stderr
    assert (workspace / "hi.py").read_text() == "print(1)\n"
    assert [e["ok"] for e in run.of_type("check")] == [True]
    assert "".join(e["text"] for e in run.of_type("token")) == "Fait."
    assert run.of_type("error") == []
    assert "does not support tools" not in run.stdout + run.stderr
    # the model never received `tools` once Loki knew (a wrong profile costs one refused request)
    assert "tools" not in server.chat_requests[-1]
    assert "tools" not in server.chat_requests[-2]
    assert len([e for e in run.of_type("notice") if "natifs" in e["message"]]) == 1


def test_an_image_reaches_a_vision_model_as_base64(
    workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    photo = _png(tmp_path / "photo.png")
    with FakeOllama(models=(), cards={"gemma3:4b": GEMMA3}) as server:
        server.script(Reply.text("Du bleu."))
        run = ask_json(
            server,
            workspace,
            loki_home,
            "--model",
            "gemma3:4b",
            "--image",
            str(photo),
            "--image",
            str(photo),
        )
    assert run.code == 0, run.stderr
    sent = server.chat_requests[0]["messages"][-1]
    assert [base64.b64decode(i) for i in sent["images"]] == [photo.read_bytes()] * 2
    stored = list((loki_home).rglob("images/*/*.png"))
    assert len(stored) == 1  # the same image once, named by its content


def test_an_image_for_a_model_without_vision_sends_nothing(
    workspace: Path, loki_home: Path, tmp_path: Path
) -> None:
    photo = _png(tmp_path / "photo.png")
    with FakeOllama(models=(), cards={"qwen3:8b": QWEN3}) as server:
        run = ask_json(server, workspace, loki_home, "--image", str(photo))
    assert run.code == 2
    assert "ne lit pas les images" in run.stderr
    assert server.chat_requests == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"just text", "n'est pas une image PNG, JPEG, WebP ou GIF"),
        (None, "Impossible de lire l'image"),
        (b"\x89PNG\r\n\x1a\nbroken", "abîmée ou illisible"),
    ],
)
def test_a_bad_image_gets_a_sentence_and_nothing_is_sent(
    workspace: Path, loki_home: Path, tmp_path: Path, content: bytes | None, words: str
) -> None:
    path = tmp_path / "file.png"
    if content is not None:
        path.write_bytes(content)
    with FakeOllama(models=(), cards={"gemma3:4b": GEMMA3}) as server:
        run = ask_json(server, workspace, loki_home, "--image", str(path))
    assert run.code == 2
    assert words in run.stderr
    assert server.requests == []


def test_models_lists_capabilities(loki_home: Path) -> None:
    cards = {
        "qwen3:8b": QWEN3,
        "gpt-oss:20b": GPT_OSS,
        "gemma3:4b": GEMMA3,
        "nomic-embed-text:latest": ModelCard.embedding(),
        "old:1b": ModelCard(capabilities=None),
    }
    with FakeOllama(models=(), cards=cards) as server:
        plain = run_cli("models", "--host", server.url, home=loki_home)
        as_json = run_cli("models", "--host", server.url, "--json", home=loki_home)
    assert plain.code == 0, plain.stderr
    assert plain.stdout.splitlines() == [
        "qwen3:8b  7.6B  outils, réflexion",
        "gpt-oss:20b  7.6B  outils, réflexion (low/medium/high)",
        "gemma3:4b  7.6B  outils décrits, vision",
        "nomic-embed-text:latest  7.6B  embeddings seulement (pas pour la conversation)",
        "old:1b  7.6B  outils, capacités inconnues",
    ]
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    gpt = lines[1]
    assert gpt["thinking"] == {"values": ["low", "medium", "high"], "default": "medium"}
    assert (gpt["tools"], gpt["vision"], gpt["chat"], gpt["context_length"]) == (
        True,
        False,
        True,
        32768,
    )
    assert [line["chat"] for line in lines] == [True, True, True, False, True]
    assert lines[4]["known"] is False
