"""The context a turn really gets: the setting, else the model's num_ctx, else the server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from loki_desktop.core.llm.budget import ContextBudget
from loki_desktop.core.llm.context_size import (
    OLLAMA_DEFAULT_CONTEXT,
    ContextSize,
    effective_context,
    modelfile_num_ctx,
)
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.ports import ModelProfile
from loki_desktop.core.settings import Settings
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.e2e.cli_runner import run_cli
from tests.fakes.ollama_server import FakeOllama, ModelCard, Reply

MODEL = "qwen2.5-coder:7b"


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [
        ("temperature 0.7\nnum_ctx 2048", 2048),
        (
            'num_ctx                        16384\nstop                           "<|im_end|>"',
            16384,
        ),
        ("temperature 0.7", None),
        ("num_ctx lots", None),
        ("num_ctx 0", None),
        ("", None),
        (None, None),
    ],
)
def test_the_modelfile_num_ctx_is_read_from_the_show_parameters(
    parameters: object, expected: int | None
) -> None:
    assert modelfile_num_ctx(parameters) == expected


def test_the_setting_then_the_modelfile_then_the_server_each_capped_by_the_trained_length() -> None:
    both = ModelProfile(MODEL, context_length=32768, modelfile_ctx=8192, server_ctx=4096)
    assert effective_context(16384, both) == ContextSize(16384, "setting")
    assert effective_context(0, both) == ContextSize(8192, "model")
    server_only = ModelProfile(MODEL, context_length=32768, server_ctx=4096)
    assert effective_context(0, server_only) == ContextSize(4096, "server")
    small = ModelProfile(MODEL, context_length=2048, modelfile_ctx=8192, server_ctx=4096)
    assert effective_context(0, small) == ContextSize(2048, "model")
    assert effective_context(65536, small) == ContextSize(2048, "setting")
    assert effective_context(0, ModelProfile(MODEL)) == ContextSize(8192, "assumed")
    assert effective_context(0, None).source == "assumed"


async def test_with_no_setting_the_turn_sends_no_num_ctx_and_budgets_the_modelfile_one(
    store: History, workspace: Path
) -> None:
    card = ModelCard(parameters="temperature 0.7\nnum_ctx 2048")
    with FakeOllama(cards={MODEL: card}, context_length=32768) as server:
        server.script(Reply.text("Bonjour."))
        backend = OllamaBackend(server.url)
        try:
            budget = ContextBudget()
            assert await budget.context(backend, MODEL, 0) == ContextSize(2048, "model")
            agent = make_agent(backend, store, workspace, Settings(model=MODEL), budget=budget)
            await turn(agent, "Bonjour")
        finally:
            await backend.close()
        (request,) = server.chat_requests
        # Ollama then applies the model's own num_ctx: the same number the budget counts
        assert "num_ctx" not in request["options"]


async def test_a_model_without_num_ctx_gets_the_server_default_and_a_setting_is_sent(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    budget = ContextBudget()
    assert await budget.context(backend, MODEL, 0) == ContextSize(OLLAMA_DEFAULT_CONTEXT, "server")
    ollama.script(Reply.text("Bonjour."))
    await turn(make_agent(backend, store, workspace, Settings(model=MODEL, num_ctx=16384)), "Hé")
    assert ollama.chat_requests[0]["options"]["num_ctx"] == 16384


def test_models_show_gives_the_context_used_and_where_it_comes_from(loki_home: Path) -> None:
    card = ModelCard(parameters="num_ctx 6144")
    with FakeOllama(cards={MODEL: card}) as server:
        run = run_cli("models", "show", MODEL, "--host", server.url, home=loki_home)
        assert run.code == 0, run.stderr
        rows = dict(line.split("  ", 1) for line in run.stdout.splitlines() if "  " in line)
        assert "6 144 jetons" in rows["Contexte utilisé"]
        assert "Modelfile" in rows["Contexte utilisé"]
        run = run_cli("models", "show", MODEL, "--json", "--host", server.url, home=loki_home)
        (profile,) = run.events
        assert (profile["num_ctx"], profile["context_used"], profile["context_from"]) == (
            6144,
            6144,
            "model",
        )
