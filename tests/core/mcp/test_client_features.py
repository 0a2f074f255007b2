"""Elicitation, sampling, roots, prompts, resources and list_changed with a real stdio server.

The server (tests/fakes/mcp_servers/features.py) runs as a process; the person's side is a
host that answers as a person would (the port the window and the terminal implement); the
model is the scripted Ollama server reached by the real client.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.mcp.host import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingPolicy,
    SamplingReport,
    SamplingRequest,
)
from loki_desktop.core.mcp.manager import McpManager
from loki_desktop.core.mcp.sampling import Sampler
from loki_desktop.persistence.secrets import KeyringSecrets
from tests.core.mcp.conftest import stdio
from tests.fakes.ollama_server import FakeOllama, Reply

pytestmark = pytest.mark.asyncio


class Person:
    """Answers as a person would: fills forms with given values, approves or not."""

    def __init__(self, values: dict[str, object] | None = None, approve: bool = True) -> None:
        self.values = values or {}
        self.approve = approve
        self.asked: list[ElicitationRequest] = []
        self.approvals: list[SamplingRequest] = []
        self.reports: list[SamplingReport] = []
        self.delay = 0.0

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        await asyncio.sleep(self.delay)
        if request.form is None:
            return ElicitationAnswer("accept")
        values = {**request.form.defaults(), **self.values}
        content, errors = request.form.validate(values)
        assert not errors, errors
        return ElicitationAnswer("accept", content)

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        self.approvals.append(request)
        return self.approve

    def sampling_done(self, report: SamplingReport) -> None:
        self.reports.append(report)


async def _manager(
    secrets: KeyringSecrets, log: Path, *, sampling: SamplingPolicy = "ask", **kwargs: float
) -> McpManager:
    config = stdio("feat", "features", params={"FEATURES_LOG": str(log)}, sampling=sampling)
    # a loaded machine may take seconds to start it: the tests need it connected
    manager = McpManager({"feat": config}, secrets, connect_wait=90, **kwargs)
    assert await manager.prepare() == []
    return manager


@pytest.fixture
async def backend(ollama: FakeOllama) -> AsyncIterator[OllamaBackend]:
    client = OllamaBackend(ollama.url)
    yield client
    await client.close()


async def test_a_form_request_reaches_the_person_and_the_answer_the_server(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    person = Person({"name": "Ada Lovelace", "topics": ["python", "web"]})
    manager.client.host = person
    try:
        outcome = await manager.call("mcp_feat_register", {})
    finally:
        await manager.aclose()
    assert outcome.ok, outcome.output
    (request,) = person.asked
    assert request.server_id == "feat"
    assert request.message == "Inscrivez-vous pour continuer."
    assert request.form is not None
    assert [f.name for f in request.form.fields] == ["name", "age", "colour", "news", "topics"]
    assert json.loads(outcome.output) == {
        "action": "accept",
        "content": {
            "name": "Ada Lovelace",
            "age": 30,
            "colour": "green",
            "news": True,
            "topics": ["python", "web"],
        },
    }


async def test_with_no_one_to_ask_the_form_is_declined(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    try:
        outcome = await manager.call("mcp_feat_register", {})
    finally:
        await manager.aclose()
    assert json.loads(outcome.output) == {"action": "decline", "content": None}


async def test_the_call_clock_stops_while_the_person_fills_the_form(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    # a 1 s call budget; the person takes 2 s: the call still succeeds (the server waited on us)
    manager = await _manager(secrets, tmp_path / "log", call_timeout=1.0)
    person = Person({"name": "Grace"})
    person.delay = 2.0
    manager.client.host = person
    try:
        outcome = await manager.call("mcp_feat_register", {})
        status = manager.status("feat")
    finally:
        await manager.aclose()
    assert outcome.ok, outcome.output
    assert json.loads(outcome.output)["action"] == "accept"
    assert status.state == "connected"


async def test_a_url_request_is_shown_as_a_url(secrets: KeyringSecrets, tmp_path: Path) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    person = Person()
    manager.client.host = person
    try:
        outcome = await manager.call("mcp_feat_visit", {})
    finally:
        await manager.aclose()
    (request,) = person.asked
    assert request.is_url
    assert request.url == "https://example.org/consent"
    assert outcome.output == "accept"


async def test_sampling_is_answered_by_the_local_model_after_approval(
    secrets: KeyringSecrets, tmp_path: Path, ollama: FakeOllama, backend: OllamaBackend
) -> None:
    ollama.script(Reply.text("A short ", "summary."))
    manager = await _manager(secrets, tmp_path / "log")
    person = Person(approve=True)
    manager.client.host = person
    manager.client.sampler = Sampler(lambda: (backend, "qwen2.5-coder:7b"), person)
    try:
        outcome = await manager.call("mcp_feat_summarize", {"text": "a long story"})
    finally:
        await manager.aclose()
    assert outcome.output == "model qwen2.5-coder:7b said: A short summary."
    (asked,) = person.approvals
    assert asked.prompt == "Summarize: a long story"
    assert asked.model_hints == ("claude-3-haiku",)
    (report,) = person.reports
    assert report.ok
    assert report.answer == "A short summary."
    (request,) = ollama.chat_requests
    assert request["model"] == "qwen2.5-coder:7b"  # the person's model, not the hinted one
    assert request["options"]["num_predict"] == 64
    assert request["messages"][0] == {"role": "system", "content": "You summarise in one line."}
    assert "tools" not in request or not request["tools"]


async def test_sampling_refused_by_policy_never_reaches_the_model(
    secrets: KeyringSecrets, tmp_path: Path, ollama: FakeOllama, backend: OllamaBackend
) -> None:
    manager = await _manager(secrets, tmp_path / "log", sampling="never")
    person = Person(approve=True)
    manager.client.host = person
    manager.client.sampler = Sampler(lambda: (backend, "qwen2.5-coder:7b"), person)
    try:
        outcome = await manager.call("mcp_feat_summarize", {"text": "x"})
    finally:
        await manager.aclose()
    assert outcome.output.startswith("refused: ")
    assert person.approvals == []
    assert ollama.chat_requests == []
    assert not person.reports[0].ok


async def test_sampling_refused_by_the_person(
    secrets: KeyringSecrets, tmp_path: Path, ollama: FakeOllama, backend: OllamaBackend
) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    person = Person(approve=False)
    manager.client.host = person
    manager.client.sampler = Sampler(lambda: (backend, "qwen2.5-coder:7b"), person)
    try:
        outcome = await manager.call("mcp_feat_summarize", {"text": "x"})
    finally:
        await manager.aclose()
    assert outcome.output.startswith("refused: ")
    assert ollama.chat_requests == []


async def test_roots_are_the_workspace_and_a_change_is_announced(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    log = tmp_path / "log"
    manager = await _manager(secrets, log)
    manager.set_roots([first])
    try:
        listed = await manager.call("mcp_feat_roots", {})
        manager.set_roots([second])
        await manager.settle()
        for _ in range(1000):  # the server lists them again on its own: wait for its line
            if log.exists() and second.name in log.read_text():
                break
            await asyncio.sleep(0.01)
    finally:
        await manager.aclose()
    assert json.loads(listed.output) == [first.resolve().as_uri()]
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries[-1] == {"roots_changed": [second.resolve().as_uri()]}


async def test_prompts_are_listed_and_rendered(secrets: KeyringSecrets, tmp_path: Path) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    try:
        prompts = {p.name: p for p in manager.prompts()}
        review = prompts["review"]
        rendered = await manager.get_prompt(review, {"code": "print(1)"})
    finally:
        await manager.aclose()
    assert set(prompts) == {"review", "hello"}
    assert review.command == "feat:review"
    assert review.title == "Relecture de code"
    assert [(a.name, a.required) for a in review.arguments] == [
        ("code", True),
        ("language", False),
    ]
    assert rendered.text == "Please review this python code:\nprint(1)"


async def test_resources_are_listed_and_read(secrets: KeyringSecrets, tmp_path: Path) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    try:
        resources = {r.uri: r for r in manager.resources()}
        text = await manager.read_resource(resources["notes://readme"])
        image = await manager.read_resource(resources["notes://logo"])
    finally:
        await manager.aclose()
    assert resources["notes://readme"].label == "Lisez-moi"
    assert text.text == "The project notes: build with make, test with pytest."
    assert "notes://readme" in text.as_context()
    assert image.text == ""
    assert len(image.images) == 1
    assert image.images[0].mime_type == "image/png"
    assert image.images[0].width == 8


async def test_a_new_tool_appears_without_reconnecting(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    manager = await _manager(secrets, tmp_path / "log")
    try:
        before = [spec.name for spec in manager.specs()]
        added = await manager.call("mcp_feat_add_tool", {})
        for _ in range(1000):
            if "mcp_feat_late" in [spec.name for spec in manager.specs()]:
                break
            await asyncio.sleep(0.01)
        late = await manager.call("mcp_feat_late", {})
        pid_state = manager.status("feat").state
    finally:
        await manager.aclose()
    assert "mcp_feat_late" not in before
    assert added.output == "added"
    assert late.ok
    assert late.output == "late tool here"
    assert pid_state == "connected"


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_resolver_form_is_answered_on_either_protocol(
    secrets: KeyringSecrets, tmp_path: Path, protocol: str
) -> None:
    # 2026-07-28: the server refuses `initialize` and sends its form in an InputRequiredResult,
    # which the connection answers through the same host before retrying the call
    config = stdio("feat", "features")
    if protocol == "2026-07-28":
        config = replace(config, command=(*stdio("feat", "modern_only").command, "features"))
    manager = McpManager({"feat": config}, secrets, connect_wait=90)
    assert await manager.prepare() == []
    person = Person({"ok": True})
    manager.client.host = person
    try:
        outcome = await manager.call("mcp_feat_confirm", {})
    finally:
        await manager.aclose()
    assert outcome.ok, outcome.output
    assert outcome.output == "accept ok=True"
    (request,) = person.asked
    assert request.message == "Confirmez-vous ?"


async def test_an_accept_without_content_gets_the_defaults(
    secrets: KeyringSecrets, tmp_path: Path
) -> None:
    class Quick(Person):
        async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
            self.asked.append(request)
            return ElicitationAnswer("accept", {"name": "Bo"})  # the rest left out

    manager = await _manager(secrets, tmp_path / "log")
    manager.client.host = Quick()
    try:
        outcome = await manager.call("mcp_feat_register", {})
    finally:
        await manager.aclose()
    assert json.loads(outcome.output)["content"] == {
        "name": "Bo",
        "age": 30,
        "colour": "green",
        "news": True,
    }


async def test_a_resource_link_a_tool_returns_can_be_followed_by_the_model(
    secrets: KeyringSecrets,
) -> None:
    from loki_desktop.core.mcp.manager import READ_RESOURCE

    manager = McpManager({"feat": stdio("feat", "features")}, secrets, connect_wait=90)
    try:
        assert await manager.prepare() == []
        assert READ_RESOURCE in [spec.name for spec in manager.specs()]  # it has resources
        linked = await manager.call("mcp_feat_links", {})
        assert "[resource notes://readme]" in linked.output
        read = await manager.call(READ_RESOURCE, {"uri": "notes://readme"})
        # a URI of a template, listed nowhere: the server that has resources reads it
        templated = await manager.call(READ_RESOURCE, {"uri": "notes://day/2026-12-04"})
        image = await manager.call(READ_RESOURCE, {"uri": "notes://logo"})
        missing = await manager.call(READ_RESOURCE, {"uri": "notes://nowhere"})
    finally:
        await manager.aclose()
    assert read.ok
    assert read.output == "The project notes: build with make, test with pytest."
    assert read.extra["mcp_resource"] == "notes://readme"
    assert templated.output == "Notes of 2026-12-04: nothing yet."
    assert len(image.images) == 1  # a vision model sees it
    assert not missing.ok
    assert "notes://nowhere could not be read" in missing.output


async def test_no_resource_tool_without_a_server_that_has_resources(
    secrets: KeyringSecrets,
) -> None:
    from loki_desktop.core.mcp.manager import READ_RESOURCE

    manager = McpManager({"echo": stdio("echo", "echo")}, secrets, connect_wait=90)
    try:
        assert await manager.prepare() == []
        assert READ_RESOURCE not in [spec.name for spec in manager.specs()]
    finally:
        await manager.aclose()
