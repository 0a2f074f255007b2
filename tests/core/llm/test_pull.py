"""Pull progress: layers summed, speed and time left, the throttle, names and error sentences."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest

from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.pull import (
    BadModelName,
    PullThrottle,
    PullTracker,
    check_model_name,
    describe,
    followed,
    pull_error_sentence,
)
from loki_desktop.core.ports import BackendError, ModelNotFound
from tests.fakes.ollama_pull import DISK_FULL_ERROR, UNKNOWN_MODEL_ERROR
from tests.fakes.ollama_server import FakeOllama


def test_layers_are_summed_and_never_go_back() -> None:
    tracker = PullTracker()
    lines = [
        {"status": "pulling manifest"},
        {"status": "pulling aaaa", "digest": "sha256:a", "total": 1000},  # no `completed` yet
        {"status": "pulling aaaa", "digest": "sha256:a", "total": 1000, "completed": 600},
        {"status": "pulling aaaa", "digest": "sha256:a", "total": 1000, "completed": 1000},
        {"status": "pulling bbbb", "digest": "sha256:b", "total": 10, "completed": 5},
        {"status": "pulling aaaa", "digest": "sha256:a", "total": 1000, "completed": 400},
        {"status": "verifying sha256 digest"},
        {"status": "success"},
    ]
    seen = [tracker.feed(line, float(t)) for t, line in enumerate(lines)]
    assert [p.completed for p in seen] == [0, 0, 600, 1000, 1005, 1005, 1005, 1010]
    assert seen[4].total == 1010
    assert seen[0].fraction is None
    assert seen[-1].finished
    assert seen[-1].fraction == 1.0


def test_speed_and_time_left_come_from_the_last_seconds() -> None:
    tracker = PullTracker()
    line = {"status": "pulling a", "digest": "sha256:a", "total": 100_000_000}
    tracker.feed({**line, "completed": 0}, 0.0)
    progress = tracker.feed({**line, "completed": 20_000_000}, 2.0)
    assert progress.bytes_per_s == pytest.approx(10_000_000)
    assert progress.seconds_left == pytest.approx(8.0)
    text = describe(progress)
    assert text.startswith("20\u00a0%")
    assert "/s" in text
    assert "encore 8 s" in text


def test_the_throttle_lets_ten_a_second_and_every_new_status_through() -> None:
    throttle = PullThrottle(per_second=10)
    tracker = PullTracker()
    line = {"status": "pulling a", "digest": "sha256:a", "total": 10_000}
    passed = 0
    for step in range(1000):  # 1,000 lines in one second
        progress = tracker.feed({**line, "completed": step * 10}, step / 1000)
        passed += throttle.due(progress, step / 1000)
    assert passed == 10
    assert throttle.due(tracker.feed({"status": "verifying sha256 digest"}, 0.9995), 0.9995)


async def test_followed_always_gives_the_last_progress() -> None:
    async def lines() -> AsyncGenerator[dict[str, Any], None]:
        for step in range(1, 501):
            yield {"status": "pulling a", "digest": "sha256:a", "total": 500, "completed": step}
        yield {"status": "success"}

    ticks = iter(float(n) / 10_000 for n in range(10_000))  # 501 lines in 50 ms
    shown = [p async for p in followed(lines(), clock=lambda: next(ticks))]
    assert shown[-1].finished
    assert len(shown) <= 3  # the first, the last, and the status change


@pytest.mark.parametrize("name", ["qwen3:8b", "llama3.2", "hf.co/bartowski/Qwen:Q4_K_M", "a/b:c"])
def test_model_names_ollama_accepts(name: str) -> None:
    assert check_model_name(f" {name} ") == name


@pytest.mark.parametrize("name", ["", "Bad Name", "qwen3:", "x" * 301, "../etc", "a:b:c"])
def test_names_ollama_would_refuse_get_a_sentence(name: str) -> None:
    with pytest.raises(BadModelName, match="nom de modèle"):
        check_model_name(name)


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (UNKNOWN_MODEL_ERROR, "n'existe pas"),
        (DISK_FULL_ERROR, "disque est plein"),
        ("Get https://registry.ollama.ai/v2/: dial tcp: lookup registry.ollama.ai", "Internet"),
        ("something else", "a échoué"),
    ],
)
def test_pull_errors_are_sentences(error: str, says: str) -> None:
    assert says in pull_error_sentence(error, "qwen3:8b")


async def test_pull_and_delete_against_the_scripted_server(ollama: FakeOllama) -> None:
    backend = OllamaBackend(ollama.url)
    try:
        statuses = [line.get("status") async for line in backend.pull("qwen3:8b")]
        assert statuses[0] == "pulling manifest"
        assert statuses[-3:] == ["verifying sha256 digest", "writing manifest", "success"]
        assert "qwen3:8b" in [m.name for m in await backend.list_models()]
        await backend.delete("qwen3:8b")
        assert "qwen3:8b" not in [m.name for m in await backend.list_models()]
        with pytest.raises(ModelNotFound, match="n'est pas installé"):
            await backend.delete("qwen3:8b")
        with pytest.raises(BackendError, match="n'existe pas"):
            async for _line in backend.pull("nothing:here"):
                pass
        ollama.pull.fail_after = 3
        with pytest.raises(BackendError, match="disque est plein"):
            async for _line in backend.pull("qwen3:8b"):
                pass
    finally:
        await backend.close()
    assert ("DELETE", "/api/delete", {"model": "qwen3:8b"}) in ollama.requests
