"""An answer's caps and the repetition guard: each ends the turn with its reason, and what
came before is kept (scripted Ollama and OpenAI-compatible servers, real SQLite)."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.core.events import Done, Event, Notice, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.llm.openai_backend import OpenAIBackend
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import Reply as OpenAIReply

LONG = [f"mot{n} " for n in range(2000)]  # a 2,000-token stream, every token different
PASSAGE = "Je répète ce paragraphe, encore et encore, sans jamais avancer d'un mot. "


def _settings(**caps: int) -> Settings:
    return Settings(
        model="qwen2.5-coder:7b",
        answer_max_tokens=caps.get("tokens", 0),
        answer_timeout_s=caps.get("seconds", 0),
    )


def _done(events: list[Event]) -> Done:
    done = events[-1]
    assert isinstance(done, Done)
    return done


def _text(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token))


def _codes(events: list[Event]) -> list[str]:
    return [e.code for e in events if isinstance(e, Notice)]


def _stored_answer(store: History, done: Done) -> tuple[str, bool]:
    assert done.session is not None
    answer = [m for m in store.messages(done.session) if m.role == "assistant"][-1]
    return answer.content, answer.cut


async def test_a_2000_token_stream_stops_at_a_cap_of_40(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text(*LONG))
    agent = make_agent(backend, store, workspace, _settings(tokens=40), skills=False)
    events = await turn(agent, "raconte")
    assert ollama.chat_requests[0]["options"]["num_predict"] == 40
    done = _done(events)
    assert done.reason == "length"
    assert _text(events) == "".join(LONG[:40])
    assert _codes(events) == ["length"]
    assert _stored_answer(store, done) == ("".join(LONG[:40]), True)
    assert done.stats["answer_tokens"] == 40


async def test_loki_holds_the_cap_when_the_server_ignores_it(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text(*LONG, ignores_num_predict=True))
    agent = make_agent(backend, store, workspace, _settings(tokens=40), skills=False)
    events = await turn(agent, "raconte")
    done = _done(events)
    assert done.reason == "length"
    # the server had its chance at the cap: Loki stops at the first piece past it
    assert _text(events) == "".join(LONG[:41])
    assert done.stats["answer_tokens"] == 41  # no count from the server: the pieces stand in
    assert _stored_answer(store, done)[1] is True


async def test_the_cap_reaches_an_openai_compatible_server_as_max_tokens(
    store: History, workspace: Path
) -> None:
    with FakeOpenAI(models=("smollm2",)) as server:
        backend = OpenAIBackend(server.url, label="llama.cpp")
        try:
            server.script(OpenAIReply.text(*LONG))
            settings = Settings(model="smollm2", answer_max_tokens=40, answer_timeout_s=0)
            events = await turn(make_agent(backend, store, workspace, settings, skills=False), "x")
        finally:
            await backend.close()
    assert server.chat_requests[0]["max_tokens"] == 40
    assert _done(events).reason == "length"
    assert _text(events) == "".join(LONG[:40])


async def test_a_passage_repeated_200_times_is_stopped_and_the_start_kept(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    intro = "Voici la réponse. "
    ollama.script(Reply.text(intro, *[PASSAGE] * 200))
    agent = make_agent(backend, store, workspace, _settings(), skills=False)
    events = await turn(agent, "explique")
    done = _done(events)
    assert done.reason == "repetition"
    assert _codes(events) == ["repetition"]
    shown = _text(events)
    assert shown.count(PASSAGE) < 20  # stopped early, not at the 200th copy
    # what is kept: everything before the loop and a single copy of the passage
    assert _stored_answer(store, done) == (intro + PASSAGE, True)
    notice = next(e for e in events if isinstance(e, Notice))
    assert "en boucle" in notice.message


async def test_a_long_list_of_different_items_is_no_loop(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    line = "{n}. Le fichier numéro {n} est rangé dans le dossier des archives.\n"
    items = [line.format(n=n) for n in range(200)]
    ollama.script(Reply.text(*items))
    agent = make_agent(backend, store, workspace, _settings(), skills=False)
    events = await turn(agent, "liste")
    assert _done(events).reason == "completed"
    assert _text(events) == "".join(items)
    assert _codes(events) == []


async def test_the_time_cap_ends_a_stalled_answer_and_keeps_its_start(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    stalled = Reply.text("Début ", "de la réponse", " jamais envoyé", pause_after=2)
    ollama.script(stalled)
    agent = make_agent(backend, store, workspace, _settings(seconds=1), skills=False)
    try:
        events = await turn(agent, "raconte")
    finally:
        stalled.resume.set()  # the server's thread goes on and ends
    done = _done(events)
    assert done.reason == "timeout"
    assert _codes(events) == ["timeout"]
    assert _stored_answer(store, done) == ("Début de la réponse", True)
