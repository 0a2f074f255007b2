"""The chosen skill reaches the model for one turn only, through build_agent and real HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loki_desktop.core.events import Done, Notice, SkillUsed, Token
from loki_desktop.core.llm.ollama import OllamaBackend
from loki_desktop.core.settings import Settings
from loki_desktop.core.skills.loader import load_builtin_skills
from loki_desktop.persistence.history import History
from tests.agent_rig import make_agent, turn
from tests.fakes.ollama_server import FakeOllama, Reply

DEBUG_REQUEST = "Mon script plante avec une TypeError, corrige-le"


def system_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "system"]


def builtin_body(name: str) -> str:
    return next(s.body for s in load_builtin_skills().skills if s.name == name)


async def test_the_skill_goes_right_after_the_system_prompt_for_this_turn_only(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Je ", "regarde."), Reply.text("De rien."))
    agent = make_agent(backend, store, workspace)

    first = await turn(agent, DEBUG_REQUEST)
    skill_events = [e for e in first if isinstance(e, SkillUsed)]
    assert skill_events == [SkillUsed("debogage-systematique", "Débogage systématique")]
    kinds = [type(e) for e in first]
    assert kinds.index(SkillUsed) < kinds.index(Token)

    request = ollama.chat_requests[0]
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "system", "user"]
    assert request["messages"][1]["content"] == builtin_body("debogage-systematique")
    assert request["messages"][2]["content"] == DEBUG_REQUEST

    done = first[-1]
    assert isinstance(done, Done)
    second = await turn(agent, "Merci !", done.session)
    assert not any(isinstance(e, SkillUsed) for e in second)
    follow_up = ollama.chat_requests[1]
    assert len(system_messages(follow_up)) == 1
    assert all("Débogage" not in m["content"] for m in follow_up["messages"])
    assert [m["role"] for m in follow_up["messages"]] == ["system", "user", "assistant", "user"]

    # history keeps the badge for the window, never the method itself
    assert done.session is not None
    stored = store.messages(done.session)
    assert all(m.role != "system" for m in stored)
    assert stored[0].meta.skill == SkillUsed("debogage-systematique", "Débogage systématique")


async def test_small_talk_gets_no_skill(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path
) -> None:
    ollama.script(Reply.text("Bonjour !"))
    events = await turn(make_agent(backend, store, workspace), "Salut, ça va ?")
    assert not any(isinstance(e, SkillUsed) for e in events)
    assert len(system_messages(ollama.chat_requests[0])) == 1


@pytest.mark.parametrize(
    ("settings", "options"),
    [(Settings(skills_enabled=False), {}), (Settings(), {"skills": False})],
    ids=["setting-off", "no-skills-option"],
)
async def test_skills_can_be_turned_off(
    ollama: FakeOllama,
    backend: OllamaBackend,
    store: History,
    workspace: Path,
    settings: Settings,
    options: dict[str, Any],
) -> None:
    ollama.script(Reply.text("ok"))
    agent = make_agent(backend, store, workspace, settings, **options)
    assert agent.pick_skill is None
    events = await turn(agent, DEBUG_REQUEST)
    assert not any(isinstance(e, SkillUsed) for e in events)
    assert len(system_messages(ollama.chat_requests[0])) == 1


async def test_user_skills_are_routed_and_bad_files_noticed_once(
    ollama: FakeOllama, backend: OllamaBackend, store: History, workspace: Path, tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "pdf.md").write_text(
        "---\nname: pdf-outils\ntitle: Outils PDF\ndescription: Fusionner des PDF.\n"
        "pairs: [fusionn* merge* | pdf]\n---\n1. Liste les PDF.\n",
        encoding="utf-8",
    )
    (skills / "broken.md").write_text("name: no fences\n", encoding="utf-8")
    ollama.script(Reply.text("ok"), Reply.text("ok"))
    agent = make_agent(backend, store, workspace, user_skills_dir=skills)

    first = await turn(agent, "Fusionne ces deux PDF")
    notices = [e.message for e in first if isinstance(e, Notice)]
    assert len(notices) == 1
    assert "broken.md" in notices[0]
    assert SkillUsed("pdf-outils", "Outils PDF") in first
    assert system_messages(ollama.chat_requests[0])[1] == "1. Liste les PDF."

    done = first[-1]
    assert isinstance(done, Done)
    second = await turn(agent, "Merci", done.session)
    assert not any(isinstance(e, Notice) for e in second)
