"""Export and import: every kind of history item round-trips; bad files change nothing."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import html5lib
import pytest
from PIL import Image

from loki_desktop.core.events import ChangedFile, CheckReport, Problem, SkillUsed
from loki_desktop.core.export.formats import ExportFailed, default_name, render, write
from loki_desktop.core.export.jsonfile import ExportFormatError, parse_export, to_dict
from loki_desktop.core.file_change import FileChange
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import MessageMeta, UndoNote
from loki_desktop.core.messages import CallRecord, ChatMessage
from loki_desktop.core.ports import ImportRefused
from loki_desktop.persistence.history import History

SECRET = "s3cr3t-value-from-the-keyring"


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def open_history(path: Path) -> History:
    path.parent.mkdir(parents=True, exist_ok=True)
    return History(path)


def full_conversation(history: History) -> str:
    """One conversation holding every kind of item the history keeps, with two branches."""
    conversation = history.create("Tout : outils, images, branches", "/home/moi/projet")
    image = ImageAttachment("image/png", 3, 2, data=png(), name="capture.png")
    write_call = CallRecord("call_1", "write_file", {"path": "a.py", "content": "x = 1\n"})
    shell_call = CallRecord("call_2", "run_shell", {"command": "make"})
    change = FileChange(path="a.py", kind="added", diff="+x = 1\n", added=1, removed=0)
    check = CheckReport("a.py", False, (Problem(1, 1, "F821 undefined name 'y'"),))
    items = [
        ChatMessage(
            "user",
            "Écris a.py",
            meta=MessageMeta(skill=SkillUsed("code", "Code")),
            images=(image,),
            turn=1,
        ),
        ChatMessage(
            "assistant",
            "",
            tool_calls=(write_call, shell_call),
            thinking="Je pense.",
            thinking_seconds=1.5,
            meta=MessageMeta(model="qwen2.5-coder:7b", text_call="json"),
            turn=1,
        ),
        ChatMessage(
            "tool",
            "Created a.py",
            tool_call_id="call_1",
            tool_name="write_file",
            meta=MessageMeta(summary="a.py écrit", change=change, check=check),
            turn=1,
        ),
        ChatMessage(
            "tool",
            "ok",
            tool_call_id="call_2",
            tool_name="run_shell",
            meta=MessageMeta(summary="make", shell_changes=(ChangedFile("b.o", "added"),)),
            turn=1,
        ),
        ChatMessage("user", "Corrige", origin="harness", turn=1),
        ChatMessage(
            "assistant",
            "Voici ``` la suite",
            cut=True,
            meta=MessageMeta(model="qwen2.5-coder:7b", prompted_tools=True),
            turn=1,
        ),
        ChatMessage(
            "user",
            "[undo]",
            origin="harness",
            meta=MessageMeta(undo=UndoNote("undo", 1, ("a.py",), (), ())),
            turn=1,
        ),
        ChatMessage("user", f"Mon jeton est {SECRET}, et ghp_abcdefghijklmnop1234", turn=2),
    ]
    for item in items:
        history.append(conversation, item)
    first = history.messages(conversation)[0]
    history.rewind(conversation, first.id)  # a regenerated answer: a sibling branch
    history.append(
        conversation,
        ChatMessage("assistant", "Autre réponse", turn=3, meta=MessageMeta(model="llama3.1:8b")),
    )
    history.set_pinned(conversation, True)
    return conversation


def test_an_exported_conversation_imports_back_the_same_with_every_kind_of_item(
    tmp_path: Path,
) -> None:
    source = open_history(tmp_path / "a" / "history.db")
    conversation = full_conversation(source)
    exported = source.export(conversation)
    text = render(exported, "json")  # no known secret given: only shaped ones are masked
    target = open_history(tmp_path / "b" / "history.db")
    target.create("déjà là")  # other rows first: the imported ids differ from the source's

    assert target.import_conversation(parse_export(text)) == conversation

    again = target.export(conversation)
    assert to_dict(again) == to_dict(parse_export(text))
    assert again.branch_count() == 2
    assert [m.content for m in target.messages(conversation)] == ["Écris a.py", "Autre réponse"]
    (info,) = [i for i in target.list_conversations() if i.id == conversation]
    assert info.pinned
    assert info.workspace == "/home/moi/projet"
    user = target.messages(conversation)[0]
    assert user.images[0].content() == png()  # the image came back as a file of its own
    assert user.images[0].path is not None
    assert user.images[0].path.parent.name == conversation
    source.close()
    target.close()


def test_secrets_never_go_into_an_export(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    conversation = full_conversation(history)
    history.switch_branch(conversation, 2)  # the branch with the secret message
    exported = history.export(conversation)

    for fmt in ("md", "json", "html"):
        text = render(exported, fmt, secrets=[SECRET])
        assert SECRET not in text
        assert "ghp_abcdefghijklmnop1234" not in text
        assert "Mon jeton est ••••, et ••••" in text
    history.close()


def test_markdown_shows_roles_models_cards_badges_and_checks(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    exported = history.export(full_conversation(history))
    history.switch_branch(exported.id, 2)  # the branch with the tools (row ids = numbers here)

    text = render(history.export(exported.id), "md")

    assert text.startswith("# Tout : outils, images, branches\n")
    assert "## Vous · " in text
    assert "## Loki (qwen2.5-coder:7b) · " in text
    assert "`méthode : Code`" in text
    assert "<summary>✓ write_file — a.py écrit</summary>" in text
    assert '"path": "a.py"' in text
    assert "F821 undefined name 'y'" in text
    assert "<summary>Réflexion (1.5 s)</summary>" in text
    assert "](data:image/png;base64," in text
    assert "> Note de Loki : Corrige" in text
    assert "Voici ``` la suite" in text
    assert "*(réponse coupée)*" in text
    assert "2 branches" in text
    history.close()


def test_the_html_page_loads_nothing_from_outside(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    conversation = full_conversation(history)
    history.append(
        conversation,
        ChatMessage(
            "assistant",
            "Voir [la doc](https://example.com/doc) ![x](http://evil.test/p.png) "
            "<img src=http://evil.test/q.png> <https://example.org> "
            "<style>@import url(//x)</style>",
        ),
    )

    page = render(history.export(conversation), "html")

    document = html5lib.parse(page, namespaceHTMLElements=False)
    urls = []
    for element in document.iter():
        for name, value in element.attrib.items():
            if name in ("src", "href", "srcset", "action", "poster", "data", "formaction"):
                urls.append(value)
        if element.tag == "style":
            urls += re.findall(r"url\(|@import", element.text or "")
    assert urls  # the image is there, as a data URI
    assert all(u.startswith("data:image/") for u in urls), urls
    (csp,) = [m for m in document.iter("meta") if m.get("http-equiv")]
    assert csp.get("content").startswith("default-src 'none'")
    assert "http://evil.test/q.png" in page  # shown as text, escaped, never fetched
    history.close()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"kind": "loki-desktop-conversation", "format": 2}', "plus récent"),
        ('{"kind": "loki-desktop-conversation", "format": "v0"}', "ne lit pas"),
        ('{"kind": "loki-desktop-conversation", "format": 1, "conversa', "tronqué"),
        ('{"format": 1}', "n'est pas un export de conversation"),
        ("[]", "n'est pas un export de conversation"),
    ],
)
def test_a_file_of_another_format_or_truncated_is_one_sentence(text: str, said: str) -> None:
    with pytest.raises(ExportFormatError, match=said):
        parse_export(text)


def test_an_export_with_a_broken_message_names_it(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    data = json.loads(render(history.export(full_conversation(history)), "json"))
    data["messages"][3]["parent"] = 99  # a message that is not before it
    with pytest.raises(ExportFormatError, match="le message 4, champ « parent »"):
        parse_export(json.dumps(data))
    data["messages"][3]["parent"] = 3
    data["messages"][0]["images"][0]["data"] = "pas du base64 !"
    with pytest.raises(ExportFormatError, match="le message 1, champ « images »"):
        parse_export(json.dumps(data))
    history.close()


def test_an_import_whose_id_exists_changes_nothing(tmp_path: Path) -> None:
    history = History(tmp_path / "history.db")
    conversation = full_conversation(history)
    exported = history.export(conversation)
    before = to_dict(exported)
    images = sorted(p.name for p in (history.images_dir / conversation).iterdir())

    with pytest.raises(ImportRefused, match="déjà dans l'historique"):
        history.import_conversation(parse_export(render(exported, "json")))

    assert to_dict(history.export(conversation)) == before
    assert sorted(p.name for p in (history.images_dir / conversation).iterdir()) == images
    assert len(history.list_conversations()) == 1
    history.close()


def test_an_import_that_fails_midway_leaves_no_row_and_no_image(tmp_path: Path) -> None:
    source = open_history(tmp_path / "a" / "history.db")
    text = render(source.export(full_conversation(source)), "json")
    target = open_history(tmp_path / "b" / "history.db")
    (tmp_path / "b" / "images").write_text("a file where the images folder should be")

    with pytest.raises(Exception, match="n'a pas pu être enregistrée"):
        target.import_conversation(parse_export(text))

    assert target.list_conversations() == []
    source.close()
    target.close()


def test_an_unwritable_target_is_a_sentence_and_leaves_nothing(tmp_path: Path) -> None:
    # a folder that is a file: refused for root too (permission bits are not)
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "pas-un-dossier").write_text("")

    with pytest.raises(ExportFailed, match="aucun fichier n'a été laissé"):
        write(folder / "pas-un-dossier" / "x.md", "texte")

    assert sorted(p.name for p in folder.iterdir()) == ["pas-un-dossier"]


FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from loki_desktop.core.export.formats import ExportFailed, write
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write then fails as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    write(Path(sys.argv[1]), "x" * 100_000)
except ExportFailed as exc:
    print(exc)
"""


def test_a_disk_that_fills_up_midway_is_a_sentence_and_leaves_the_old_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "exports").mkdir()
    target = tmp_path / "exports" / "export.md"
    target.write_text("l'ancien export\n")

    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert "l'espace disque" in done.stdout
    assert target.read_text() == "l'ancien export\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["export.md"]


def test_the_proposed_file_name_is_the_title() -> None:
    assert default_name("Mon projet : v2/3", "md") == "Mon projet - v2-3.md"
    assert default_name("...", "json") == "conversation.json"


def test_every_cut_of_an_export_and_every_field_of_the_wrong_type_is_one_error(
    tmp_path: Path,
) -> None:
    history = History(tmp_path / "history.db")
    text = render(history.export(full_conversation(history)), "json")
    for cut in range(0, len(text) - 2, max(1, len(text) // 300)):
        with pytest.raises(ExportFormatError):
            parse_export(text[:cut])
    data = json.loads(text)
    for index, message in enumerate(data["messages"]):
        for key in message:
            broken = json.loads(text)
            broken["messages"][index][key] = {"not": "this"} if key != "meta" else "x"
            with pytest.raises(ExportFormatError, match="abîmé"):
                parse_export(json.dumps(broken))
    for key in data["conversation"]:
        broken = json.loads(text)
        broken["conversation"][key] = [1]
        with pytest.raises(ExportFormatError, match="abîmé"):
            parse_export(json.dumps(broken))
    history.close()
