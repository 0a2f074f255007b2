"""A tool card's summary is stored as facts and worded in the language of the day it is shown."""

from __future__ import annotations

from pathlib import Path

from loki_desktop.cli.approval import FixedApprover
from loki_desktop.core.i18n import set_language
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.said import Facts, facts_of
from loki_desktop.core.tools.jail import Workspace
from loki_desktop.core.tools.native import NativeTools
from loki_desktop.core.tools.toolbox import Toolbox


async def test_a_write_summed_up_in_french_is_read_in_english_later(tmp_path: Path) -> None:
    tools = Toolbox([NativeTools(Workspace(tmp_path), FixedApprover(False))])
    outcome = await tools.call("write_file", {"path": "app.js", "content": "x" * 68})
    assert outcome.summary == "app.js écrit (68 octets)"
    facts = facts_of(outcome.summary)
    assert facts == Facts(
        "{path} écrit ({n} octet)", "{path} écrit ({n} octets)", 68, (("path", "app.js"), ("n", 68))
    )
    stored = MessageMeta(summary=outcome.summary, facts=facts).to_json()  # as the history keeps it
    reopened = MessageMeta.from_json(stored)
    set_language("en")
    assert reopened.shown_summary == "app.js written (68 bytes)"
    set_language("fr")
    assert reopened.shown_summary == "app.js écrit (68 octets)"


async def test_a_failure_and_an_older_row_keep_their_words(tmp_path: Path) -> None:
    tools = Toolbox([NativeTools(Workspace(tmp_path), FixedApprover(False))])
    outcome = await tools.call("read_file", {"path": "absent.txt"})
    assert not outcome.ok
    meta = MessageMeta.from_json(
        MessageMeta(ok=False, summary=outcome.summary, facts=facts_of(outcome.summary)).to_json()
    )
    set_language("en")
    assert meta.shown_summary != outcome.summary  # worded again, in English
    # a row written before facts were kept: its words as they were
    assert (
        MessageMeta.from_json({"ok": True, "summary": "a.py écrit"}).shown_summary == "a.py écrit"
    )
