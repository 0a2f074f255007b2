"""The eval says how each task ended, records what it produced up to there, and says where
harness on and off differed (the runner on the scripted Ollama server, real SQLite)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from loki_desktop.core.evaluation.graders import Verdict
from loki_desktop.core.evaluation.replay import RecordingBackend, save_recording
from loki_desktop.core.evaluation.report import ends_table, harness_gap, summarize, summary_event
from loki_desktop.core.evaluation.runner import Harness, Runner, TaskResult
from loki_desktop.core.evaluation.tasks import EvalTask, FileContains, Reference
from loki_desktop.core.llm.caps import AnswerCaps
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.ports import ChatBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen2.5-coder:7b"
TASK = EvalTask(
    id="hello",
    kind="file",
    prompt="Écris hello.txt contenant Bonjour.",
    graders=(FileContains("hello.txt", ("Bonjour",)),),
    reference=Reference(),
)


class _NoSecrets:
    """The tasks here fetch nothing: no secret is ever asked for."""

    def get(self, name: str) -> str | None:
        return None

    def set(self, name: str, value: str) -> None:
        return None

    def delete(self, name: str) -> None:
        return None


def _runner(backend: OllamaBackend, recorders: list[RecordingBackend], caps: AnswerCaps) -> Runner:
    def backend_for(model: str, task: EvalTask, mode: Harness, url: str) -> ChatBackend:
        recorder = RecordingBackend(backend)
        recorders.append(recorder)
        return recorder

    settings = Settings(answer_max_tokens=0, answer_timeout_s=0)
    return Runner(backend_for, History, _NoSecrets(), settings, caps=caps)


async def test_a_task_that_times_out_is_recorded_up_to_its_end(
    ollama: FakeOllama, backend: OllamaBackend, tmp_path: Path
) -> None:
    stalled = Reply.text(*[f"mot{n} " for n in range(30)], pause_after=25)
    ollama.script(stalled)
    recorders: list[RecordingBackend] = []
    runner = _runner(backend, recorders, AnswerCaps(timeout_s=1))
    try:
        result = await runner.run_task(MODEL, "on", TASK, "")
    finally:
        stalled.resume.set()
    assert result.end == "timeout"
    assert not result.passed
    assert result.answer_tokens == 25  # what it produced, not 0
    assert dict(result.notices).get("timeout") == 1
    (recorder,) = recorders
    path = tmp_path / "rec" / "hello.json"
    save_recording(path, recorder.replies)
    (kept,) = json.loads(path.read_text())
    assert kept["content"] == "".join(f"mot{n} " for n in range(25))
    assert kept["ended"] == "cut"
    assert kept["pieces"] == 25


async def test_the_task_limit_cancels_a_turn_and_its_tokens_still_count(
    ollama: FakeOllama, backend: OllamaBackend
) -> None:
    stalled = Reply.text(*[f"mot{n} " for n in range(10)], pause_after=6)
    ollama.script(stalled)
    recorders: list[RecordingBackend] = []
    runner = _runner(backend, recorders, AnswerCaps())
    try:
        result = await runner.run_task(MODEL, "on", dataclasses.replace(TASK, time_limit_s=1), "")
    finally:
        stalled.resume.set()
    assert result.end == "timeout"
    assert "time limit of 1 s" in result.error
    assert result.answer_tokens == 6
    assert recorders[0].replies[0].content.startswith("mot0 mot1")
    assert recorders[0].replies[0].ended == "cut"


async def test_a_loop_ends_the_task_as_repetition_and_its_tool_calls_are_counted(
    ollama: FakeOllama, backend: OllamaBackend
) -> None:
    ollama.script(
        Reply.tool("write_file", {"path": "autre.txt", "content": "x"}),
        Reply.text(*["Je vais écrire le fichier hello.txt maintenant, promis. "] * 100),
    )
    runner = _runner(backend, [], AnswerCaps())
    result = await runner.run_task(MODEL, "on", TASK, "")
    assert result.end == "repetition"
    assert result.tool_calls == 1
    assert result.answer_tokens > 0


def _result(harness: Harness, task: str, passed: bool, **extra: object) -> TaskResult:
    verdicts = (Verdict(passed, "" if passed else "hello.txt manque"),)
    base = TaskResult(MODEL, harness, task, "file", passed, verdicts, 1.0, 0, 0, 0, 0)
    fields: dict[str, Any] = {"end": "passed" if passed else "failed_check", **extra}
    return dataclasses.replace(base, **fields)


def test_a_lower_score_with_the_harness_says_where_the_runs_differed() -> None:
    folded = (("system_folded", 1),)
    results = [
        *[_result("on", f"t{n}", False, notices=folded) for n in range(5)],
        *[_result("off", f"t{n}", n < 2, tool_calls=1) for n in range(5)],
    ]
    gap = harness_gap(results)
    assert gap[0].startswith(f"« {MODEL} » réussit moins avec le harnais (0/5) que sans (2/5)")
    assert "t0, t1" in gap[1]
    assert any("aucun appel d'outil dans 5 tâches sur 5" in line for line in gap)
    assert any("premier message" in line for line in gap)
    event = summary_event(summarize(results), results)
    assert event["differences"] == gap
    assert event["ends"][0] == {"model": MODEL, "harness": "on", "failed_check": 5}


def test_no_difference_is_told_when_the_harness_does_as_well() -> None:
    results = [_result("on", "t0", True), _result("off", "t0", True)]
    assert harness_gap(results) == []


def test_the_table_gives_each_task_its_end_calls_and_tokens() -> None:
    result = _result("on", "t0", False, tool_calls=3, answer_tokens=5000, end="length")
    table = ends_table([result])
    assert f"| {MODEL} | on | t0 | longueur maximale | 3 | 5000 | — |" in table


async def test_a_model_that_says_nothing_is_no_server_error(
    ollama: FakeOllama, backend: OllamaBackend
) -> None:
    ollama.script(Reply.text(""))
    result = await _runner(backend, [], AnswerCaps()).run_task(MODEL, "on", TASK, "")
    assert result.end == "empty_answer"
    ollama.script(Reply.http_error(500, "model runner has unexpectedly stopped"))
    result = await _runner(backend, [], AnswerCaps()).run_task(MODEL, "on", TASK, "")
    assert result.end == "server_error"
