"""An answer's figures from the server's own counts (Ollama, OpenAI usage), or estimated."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.answer_stats import AnswerStats
from loki_desktop.core.events import Done, event_to_json
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes import openai_server
from tests.fakes.ollama_server import FakeOllama, Reply

KEYS = {
    "prompt_tokens",
    "answer_tokens",
    "tokens_per_second",
    "first_token_s",
    "context_tokens",
    "context_limit",
}


def _stats(events: list[object]) -> AnswerStats:
    done = events[-1]
    assert isinstance(done, Done)
    assert done.stats is not None
    return done.stats


async def test_ollama_counts_give_the_figures(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    # 40 tokens written in 0.5 s by the server's clock: 80 tokens/s
    ollama.script(
        Reply.text("Bon", "jour", prompt_eval_count=1200, eval_count=40, eval_duration=500_000_000)
    )
    stats = _stats(await turn(make_agent(backend, store, workspace, skills=False), "Salut"))
    assert stats.prompt_tokens == 1200
    assert stats.answer_tokens == 40
    assert stats.tokens_per_second == 80.0
    assert stats.context_tokens == 1240
    assert stats.context_limit == 8192
    assert stats.first_token_s is not None
    assert stats.first_token_s >= 0
    assert not stats.estimated
    assert set(stats.to_json()) == KEYS


async def test_a_turn_with_tools_sums_answers_and_keeps_the_last_prompt(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("A")
    ollama.script(
        Reply.tool("read_file", {"path": "a.txt"}),
        Reply.text("Lu.", prompt_eval_count=900, eval_count=12, eval_duration=200_000_000),
    )
    agent = make_agent(backend, store, workspace, Settings(num_ctx=4096), skills=False)
    stats = _stats(await turn(agent, "lis a.txt"))
    assert stats.prompt_tokens == 900  # the last request's, not a sum
    assert stats.answer_tokens == 1 + 12  # the tool round's count is the fake's default, 1
    assert stats.context_tokens == 912
    assert stats.context_limit == 4096
    assert stats.rounds == 1


async def test_a_server_without_counts_gets_an_estimate_marked_as_such(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Une réponse ", "de quelques mots.", counts=False))
    stats = _stats(await turn(make_agent(backend, store, workspace, skills=False), "Salut"))
    assert stats.estimated
    assert stats.answer_tokens > 0
    assert stats.prompt_tokens > 0  # the budget's estimate of the request
    assert stats.to_json()["estimated"] is True


async def test_openai_usage_gives_the_counts(store: History, workspace: Path) -> None:
    model = "Qwen/Qwen2.5-Coder-7B-Instruct"
    with openai_server.FakeOpenAI(max_model_len=32768) as server:
        backend = OpenAIBackend(server.url, label="vLLM")
        try:
            server.script(openai_server.Reply.text("a", "b", "c", prompt_tokens=321))
            agent = make_agent(backend, store, workspace, Settings(model=model), skills=False)
            stats = _stats(await turn(agent, "Salut"))
            assert server.chat_requests[0]["stream_options"] == {"include_usage": True}
            server.script(openai_server.Reply.text("sans compte", usage=False))
            guessed = _stats(await turn(agent, "Encore"))
        finally:
            await backend.close()
    assert (stats.prompt_tokens, stats.answer_tokens, stats.estimated) == (321, 3, False)
    assert stats.context_tokens == 324
    assert guessed.estimated


def test_the_done_line_carries_the_figures() -> None:
    stats = AnswerStats(10, 5, 12.5, 0.25, 15, 8192)
    line = event_to_json(Done("completed", "abc", stats))
    assert line == {
        "type": "done",
        "reason": "completed",
        "session": "abc",
        "stats": {
            "prompt_tokens": 10,
            "answer_tokens": 5,
            "tokens_per_second": 12.5,
            "first_token_s": 0.25,
            "context_tokens": 15,
            "context_limit": 8192,
        },
    }
    assert event_to_json(Done("error", None))["stats"] is None
    assert AnswerStats(context_tokens=7000, context_limit=8000).context_share == 0.875


async def test_the_figures_are_kept_with_the_answer(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Bonjour", prompt_eval_count=100, eval_count=7))
    events = await turn(make_agent(backend, store, workspace, skills=False), "Salut")
    done = events[-1]
    assert isinstance(done, Done)
    assert done.session is not None
    answer = store.messages(done.session)[-1]
    assert answer.meta.figures is not None
    assert answer.meta.figures.to_json() == _stats(events).to_json()
    # read back as stored: a damaged value is no figure
    assert AnswerStats.from_json({"answer_tokens": "7", "tokens_per_second": True}) == (
        AnswerStats()
    )
    assert AnswerStats.from_json("nope") is None
