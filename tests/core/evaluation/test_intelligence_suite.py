"""The intelligence suite (memory and workspace tasks) and the harness variants, in process:
the real runner, the replay backend, real SQLite and real files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loki_desktop.core.evaluation import replay
from loki_desktop.core.evaluation.runner import Runner
from loki_desktop.core.evaluation.suite_basic import SUITES, basic_suite
from loki_desktop.core.evaluation.suite_intelligence import WORKSPACE_FILES, intelligence_suite
from loki_desktop.core.evaluation.tasks import AnswerContains, EvalTask
from loki_desktop.core.evaluation.variants import Harness, modes_of, parts
from loki_desktop.core.plan import PLAN_SYSTEM
from loki_desktop.core.review import REVIEW_SYSTEM
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from loki_desktop.persistence.secrets import KeyringSecrets


def by_kind(kind: str) -> list[EvalTask]:
    return [task for task in intelligence_suite() if task.kind == kind]


def test_eight_memory_tasks_each_told_in_an_earlier_conversation() -> None:
    tasks = by_kind("memory")
    assert len(tasks) == 8
    for task in tasks:
        assert task.earlier
        (grader,) = task.graders
        assert isinstance(grader, AnswerContains)
        # the fact is in what was said earlier, not in the question
        assert all(word.lower() in task.earlier[0].lower() for word in grader.words)
        assert not any(word.lower() in task.prompt.lower() for word in grader.words)


def test_eight_workspace_tasks_each_a_fact_in_one_file_of_300_not_named() -> None:
    tasks = by_kind("workspace")
    assert len(tasks) == 8
    for task in tasks:
        assert len(task.files) == WORKSPACE_FILES
        search = task.reference.rounds[0][0].args["pattern"]
        holders = [name for name, text in task.files.items() if re.search(search, text)]
        needle = task.reference.rounds[1][0].args["path"]
        assert holders == [needle]
        assert needle not in task.prompt
        assert Path(needle).stem not in task.prompt
    assert "intelligence" in SUITES


@pytest.mark.parametrize(
    ("asked", "modes"),
    [
        ([], ["on", "off"]),
        (["both"], ["on", "off"]),
        (["on"], ["on"]),
        (["plan-off", "on", "plan-off"], ["plan-off", "on"]),
        (["both", "memory-off", "review-off"], ["on", "off", "memory-off", "review-off"]),
    ],
)
def test_harness_choices_read_in_order_each_once(asked: list[str], modes: list[str]) -> None:
    assert modes_of(asked) == modes


def test_each_variant_turns_off_its_own_part_only() -> None:
    assert parts("on") == parts("on").__class__(True, True, True, True)
    assert (parts("plan-off").plan, parts("plan-off").review) == (False, True)
    assert (parts("review-off").review, parts("review-off").plan) == (False, True)
    assert (parts("memory-off").memory, parts("memory-off").harness) == (False, True)
    assert parts("off") == parts("on").__class__(False, False, False, False)


async def run_with(
    tmp_path: Path, task: EvalTask, mode: Harness, script: replay.Script, side_calls: bool
) -> tuple[bool, list[replay.ReplayBackend]]:
    backends: list[replay.ReplayBackend] = []

    def backend_for(model: str, task: EvalTask, mode: Harness, url: str) -> replay.ReplayBackend:
        backend = replay.ReplayBackend(replay.scripted(task, script), side_calls=side_calls)
        backends.append(backend)
        return backend

    runner = Runner(backend_for, History, KeyringSecrets(), Settings())
    result = await runner.run_task("replay", mode, task, "")
    return result.passed, backends


async def test_the_oracle_passes_and_the_saboteur_fails_a_memory_and_a_workspace_task(
    tmp_path: Path,
) -> None:
    for task in (by_kind("memory")[0], by_kind("workspace")[0]):
        passed, _ = await run_with(tmp_path, task, "on", "oracle", side_calls=True)
        assert passed, task.id
        passed, _ = await run_with(tmp_path, task, "on", "sabotage", side_calls=True)
        assert not passed, task.id


async def test_the_earlier_message_is_said_in_a_conversation_of_its_own(tmp_path: Path) -> None:
    task = by_kind("memory")[0]
    _, (backend,) = await run_with(tmp_path, task, "on", "oracle", side_calls=True)
    first, second = backend.requests
    assert first["messages"][-1]["content"] == task.earlier[0]
    # the question opens a new conversation: the earlier one is not in its history
    assert all(m["content"] != task.earlier[0] for m in second["messages"])
    assert second["messages"][-1]["content"] == task.prompt


async def test_on_plans_and_reviews_while_plan_off_and_review_off_do_not(tmp_path: Path) -> None:
    multi = next(t for t in basic_suite() if t.id == "file-replace-todo")
    plan_task = EvalTask(
        "multi",
        "file",
        "Lis todo.txt, remplace chaque TODO par DONE, puis vérifie le fichier.",
        multi.graders,
        multi.reference,
        files=multi.files,
    )

    def firsts(backend: replay.ReplayBackend) -> list[str]:
        return [request["messages"][0]["content"] for request in backend.requests]

    variants: tuple[tuple[Harness, bool, bool], ...] = (
        ("on", True, True),
        ("plan-off", False, True),
        ("review-off", True, False),
    )
    for mode, planned, reviewed in variants:
        # side calls off: each harness call is a request of the replay, so it can be counted
        _, (backend,) = await run_with(tmp_path, plan_task, mode, "oracle", side_calls=False)
        assert (PLAN_SYSTEM in firsts(backend), REVIEW_SYSTEM in firsts(backend)) == (
            planned,
            reviewed,
        ), mode


async def test_a_memory_task_passes_with_memories_and_fails_without(tmp_path: Path) -> None:
    """A scripted model that answers only from what the harness gave it (the system texts
    after the main prompt): what an earlier conversation kept reaches it only with memories."""
    from loki_desktop.core.llm.ollama import OllamaBackend
    from loki_desktop.core.memory.recall import Memories
    from loki_desktop.core.memory.vector_state import EmbedderChoice
    from loki_desktop.persistence.memory_store import MemoryFile
    from tests.fakes.ollama_server import FakeOllama, Reply

    def from_what_it_was_given(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        given = [m["content"] for m in messages[1:] if m["role"] == "system"]
        return Reply.text(
            "D'après ce que je sais : " + " ".join(given) if given else "Aucune idée."
        )

    def memories_at(folder: Path) -> Memories:
        words_only = EmbedderChoice(None, fallback=lambda: None)
        return Memories(lambda: MemoryFile(folder / "memories.db"), words_only)

    task = by_kind("memory")[0]
    passed: dict[str, bool] = {}
    with FakeOllama(default=Reply.text("")) as server:
        server.default = from_what_it_was_given
        backend = OllamaBackend(server.url)
        try:
            runner = Runner(
                lambda *_: backend, History, KeyringSecrets(), Settings(), memories_at=memories_at
            )
            for mode in ("review-off", "memory-off"):
                result = await runner.run_task("qwen2.5-coder:7b", mode, task, "")
                passed[mode] = result.passed
        finally:
            await backend.close()
    assert passed == {"review-off": True, "memory-off": False}
