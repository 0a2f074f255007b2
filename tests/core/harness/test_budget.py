"""Fitting requests into the context window: what is kept, what is left out, what is learnt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loki_desktop.core.llm.budget import (
    SAFETY_MARGIN,
    ContextBudget,
    ContextTooSmall,
    FittedRequest,
    answer_reserve,
)
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.slim import tool_tokens
from tests.fakes.ollama_server import FakeOllama

SCHEMAS = Path(__file__).resolve().parents[2] / "corpus" / "schemas"
MODEL = "qwen2.5-coder:7b"
SYSTEM = "You are Loki, a careful assistant running on the user's own computer."
SKILL = "1. Reproduce the bug. 2. Read the traceback. 3. Fix the cause, not the symptom."
NATIVE = [
    ToolSpec(
        "read_file",
        "Read a text file of the workspace.",
        {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "File path."}},
            "required": ["path"],
        },
    )
]


def server_specs(server: str) -> list[ToolSpec]:
    tools = json.loads((SCHEMAS / f"{server}.json").read_text(encoding="utf-8"))
    return [ToolSpec(t["name"], t["description"], t["inputSchema"], server) for t in tools]


def exchange(index: int, words: int = 60) -> list[ChatMessage]:
    question = f"Question {index} : " + "explique encore ce module en détail " * (words // 6)
    answer = f"Réponse {index} : " + "le module lit la configuration puis démarre " * (words // 6)
    return [ChatMessage("user", question), ChatMessage("assistant", answer)]


def long_history(exchanges: int, last: str = "Et maintenant, que faut-il corriger ?") -> list:
    history = [m for i in range(exchanges) for m in exchange(i)]
    return [*history, ChatMessage("user", last)]


def fit(
    history: list[ChatMessage],
    *,
    window: int = 8192,
    tools: list[ToolSpec] | None = None,
    budget: ContextBudget | None = None,
) -> FittedRequest:
    return (budget or ContextBudget()).fit(
        model=MODEL,
        window=window,
        system=[SYSTEM, SKILL],
        history=history,
        tools=NATIVE if tools is None else tools,
    )


def contents(request: FittedRequest) -> list[str]:
    return [m["content"] for m in request.messages]


def assert_fits(request: FittedRequest) -> None:
    limit = request.window - answer_reserve(request.window)
    assert request.raw_estimate * (1 + SAFETY_MARGIN) <= limit


def test_a_short_conversation_is_sent_whole_with_slimmed_tools() -> None:
    history = long_history(3)
    request = fit(history)
    assert contents(request) == [SYSTEM, SKILL, *(m.content for m in history)]
    assert request.notices == ()
    assert request.dropped_messages == 0
    assert [t["function"]["name"] for t in request.tools] == ["read_file"]
    assert request.tools[0]["function"]["parameters"]["required"] == ["path"]


def test_an_overflowing_history_drops_the_oldest_and_keeps_system_skill_and_last() -> None:
    history = long_history(40)
    request = fit(history, window=2048)
    sent = contents(request)
    assert sent[:2] == [SYSTEM, SKILL]
    assert sent[-1] == history[-1].content
    # what is sent is the newest part of the conversation, in order, starting with a question
    assert sent[2:] == [m.content for m in history[-(len(sent) - 2) :]]
    assert request.messages[2]["role"] == "user"
    assert 0 < request.dropped_messages == len(history) - (len(sent) - 2)
    assert request.notices == (
        f"{request.dropped_messages} messages anciens n'ont pas été envoyés au modèle "
        "(contexte de 2048 jetons).",
    )
    assert_fits(request)


def test_the_users_message_stays_when_a_harness_note_follows_it() -> None:
    history = [
        *long_history(30, last="Écris le module et vérifie-le."),
        ChatMessage("assistant", "", tool_calls=(CallRecord("c1", "read_file", {"path": "a"}),)),
        ChatMessage("tool", "x = 1\n" * 20, tool_call_id="c1", tool_name="read_file"),
        ChatMessage("user", "The automatic check still finds problems.", origin="harness"),
    ]
    request = fit(history, window=1536)
    sent = contents(request)
    assert "Écris le module et vérifie-le." in sent
    assert sent[-1] == "The automatic check still finds problems."


def test_a_tool_result_never_travels_without_its_call() -> None:
    history: list[ChatMessage] = []
    for i in range(12):
        history += exchange(i, words=30)
        calls = (
            CallRecord(f"a{i}", "read_file", {"path": f"f{i}.py"}),
            CallRecord(f"b{i}", "read_file", {"path": f"g{i}.py"}),
        )
        history.append(ChatMessage("assistant", "", tool_calls=calls))
        for call in calls:
            output = f"contents of {call.args['path']}\n" * 15
            history.append(ChatMessage("tool", output, tool_call_id=call.id, tool_name="read_file"))
    history.append(ChatMessage("user", "Résume."))
    for window in (1024, 1536, 2048, 3072, 4096):
        messages = fit(history, window=window).messages
        for index, message in enumerate(messages):
            if message["role"] == "tool":
                before = messages[index - 1]
                assert before["role"] == "tool" or "tool_calls" in before, window
            if "tool_calls" in message:
                following = [m["role"] for m in messages[index + 1 : index + 3]]
                assert following == ["tool", "tool"], window


def test_the_current_turns_work_is_kept_before_older_history() -> None:
    history = long_history(30, last="Lis a.py puis corrige-le.")
    call = CallRecord("c1", "read_file", {"path": "a.py"})
    history += [
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", "def f():\n    return 1\n", tool_call_id="c1", tool_name="read_file"),
    ]
    sent = contents(fit(history, window=2048))
    assert sent[-2:] == ["", "def f():\n    return 1\n"]
    assert sent[-3] == "Lis a.py puis corrige-le."


def test_tools_are_dropped_most_expensive_server_first_and_native_never() -> None:
    tools = [*NATIVE, *server_specs("fetch"), *server_specs("playwright"), *server_specs("memory")]
    request = fit(long_history(10), window=4096, tools=tools)
    names = {t["function"]["name"] for t in request.tools}
    assert "read_file" in names
    assert "fetch" in names  # the cheap server still fits
    assert not any(name.startswith("browser_") for name in names)
    playwright_cost = sum(tool_tokens(spec) for spec in server_specs("playwright"))
    assert request.dropped_sources[0] == ("playwright", playwright_cost)
    assert (
        f"Les outils du serveur « playwright » (~{playwright_cost} jetons) n'ont pas été "
        "envoyés au modèle : ils ne tiennent pas dans le contexte de 4096 jetons."
    ) in request.notices
    # history went first: nothing of it could stay with every tool
    assert request.dropped_messages > 0
    assert_fits(request)


def test_history_comes_back_once_the_tools_are_gone() -> None:
    tools = [*NATIVE, *server_specs("playwright")]
    request = fit(long_history(10), window=5120, tools=tools)
    assert [source for source, _cost in request.dropped_sources] == ["playwright"]
    # after playwright left, the freed room holds the whole history again
    assert request.dropped_messages == 0
    assert len(request.messages) == 2 + 21


def test_too_small_even_for_the_last_message_is_an_error() -> None:
    huge = "mot " * 3000
    with pytest.raises(ContextTooSmall, match="contexte de 2048 jetons"):
        fit([ChatMessage("user", huge)], window=2048)


def test_calibration_from_the_servers_count() -> None:
    budget = ContextBudget()
    history = long_history(40)
    first = fit(history, window=4096, budget=budget)
    # the model's tokenizer counts 30 % fewer tokens than our estimate
    assert budget.observe(MODEL, first, int(first.raw_estimate * 0.7)) is None
    assert budget.factor(MODEL) == pytest.approx(0.7, abs=0.01)
    second = fit(history, window=4096, budget=budget)
    assert second.dropped_messages < first.dropped_messages  # more history fits now
    assert budget.factor("other-model") == 1.0


def test_absurd_counts_do_not_calibrate() -> None:
    budget = ContextBudget()
    request = fit(long_history(2), budget=budget)
    assert budget.observe(MODEL, request, 42) is None  # a cached or fake count
    assert budget.observe(MODEL, request, 0) is None
    assert budget.factor(MODEL) == 1.0


def test_a_full_window_count_means_ollama_cut_the_front() -> None:
    budget = ContextBudget()
    request = fit(long_history(40), window=2048, budget=budget)
    warning = budget.observe(MODEL, request, 2048)
    assert warning is not None
    assert "contexte de 2048 jetons" in warning
    assert budget.factor(MODEL) > 1.0  # estimate higher from now on


def test_a_count_far_below_a_large_request_means_messages_were_dropped() -> None:
    budget = ContextBudget()
    request = fit(long_history(40), window=2048, budget=budget)
    warning = budget.observe(MODEL, request, request.raw_estimate // 3)
    assert warning is not None
    assert warning.startswith(f"Ollama n'a lu que {request.raw_estimate // 3} jetons")


async def test_the_window_is_num_ctx_unless_the_model_supports_less() -> None:
    with FakeOllama(context_length=4096) as small, FakeOllama(context_length=32768) as large:
        for server, expected in ((small, 4096), (large, 8192)):
            backend = OllamaBackend(server.url)
            try:
                budget = ContextBudget()
                assert await budget.window(backend, MODEL, 8192) == expected
                assert await budget.window(backend, MODEL, 8192) == expected
                assert await budget.window(backend, MODEL, 2048) == 2048
            finally:
                await backend.close()
            shows = [path for _method, path, _body in server.requests if path == "/api/show"]
            assert len(shows) == 1  # asked once per model, then cached


async def test_a_model_loaded_smaller_by_another_client_does_not_shrink_the_window() -> None:
    with FakeOllama(context_length=32768) as server:
        server.loaded[MODEL] = 2048  # another client loaded it with its own num_ctx
        backend = OllamaBackend(server.url)
        try:
            # what the model supports counts, not what it happens to be loaded with:
            # our requests carry num_ctx, so Ollama reloads it at our size
            assert await ContextBudget().window(backend, MODEL, 8192) == 8192
        finally:
            await backend.close()
        assert "/api/ps" not in [path for _m, path, _b in server.requests]


async def test_a_window_asked_while_ollama_is_down_is_asked_again_once_it_is_back() -> None:
    down = FakeOllama().start()
    port = down.port
    down.stop()  # nothing listens on the port now
    backend = OllamaBackend(f"http://127.0.0.1:{port}")
    budget = ContextBudget()
    try:
        assert await budget.window(backend, MODEL, 8192) == 8192  # could not ask: num_ctx
        with FakeOllama(port=port, context_length=2048) as back:
            assert await budget.window(backend, MODEL, 8192) == 2048
            assert await budget.window(backend, MODEL, 8192) == 2048
        shows = [path for _method, path, _body in back.requests if path == "/api/show"]
        assert len(shows) == 1  # a real answer is kept
    finally:
        await backend.close()
