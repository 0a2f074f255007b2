"""The strict front-matter reader: the YAML subset skill files use, errors with line numbers."""

from __future__ import annotations

import pytest

from loki_desktop.core.skills.frontmatter import NESTED, FrontMatterError, split_front_matter

KEYS = ("name", "title", "description", "keywords", "strong", "pairs", "extensions")


def read(text: str) -> tuple[dict[str, object], str]:
    data, body = split_front_matter(text, KEYS)
    return dict(data), body


def test_reads_scalars_lists_and_the_body() -> None:
    data, body = read(
        "---\n"
        "name: demo-skill   # a comment\n"
        'title: "Démo : avec deux-points"\n'
        "description: 'It''s quoted'\n"
        "keywords: [bug, \"stack trace\", 'a, b', C# code]\n"
        "strong:\n"
        '  - "*error"\n'
        "  - ne marche pas\n"
        "pairs:\n"
        "- corrig* | bug*\n"
        "---\n"
        "# Body\n\nKept: as is.\n"
    )
    assert data == {
        "name": "demo-skill",
        "title": "Démo : avec deux-points",
        "description": "It's quoted",
        "keywords": ["bug", "stack trace", "a, b", "C# code"],
        "strong": ["*error", "ne marche pas"],
        "pairs": ["corrig* | bug*"],
    }
    assert body == "# Body\n\nKept: as is.\n"


def test_block_scalars_and_continued_plain_values() -> None:
    data, _body = read(
        "---\n"
        "description: >\n"
        "  Folded over\n"
        "  two lines.\n"
        "\n"
        "  New paragraph.\n"
        "title: |\n"
        "  line one\n"
        "  line two\n"
        "name: a plain value\n"
        "  continued here\n"
        "---\nbody\n"
    )
    assert data["description"] == "Folded over two lines.\nNew paragraph."
    assert data["title"] == "line one\nline two"
    assert data["name"] == "a plain value continued here"


def test_keys_it_does_not_read_may_hold_richer_yaml() -> None:
    data, _body = read(
        "---\n"
        "name: x\n"
        "metadata:\n"
        "  author: someone\n"
        "  tags: {a: 1}\n"
        "allowed-tools:\n"
        "  - name: Bash\n"
        "license: Apache-2.0: see LICENSE\n"
        "keywords:\n"
        "  nested: mapping\n"
        "---\nbody\n"
    )
    assert data["name"] == "x"
    assert data["keywords"] is NESTED
    assert "metadata" not in data


def test_bom_and_crlf_are_accepted() -> None:
    data, body = read("\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n")
    assert data == {"name": "x", "description": "y"}
    assert body == "body\r\n"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("# no front matter\n", 1, "---"),
        ("---\nname: x\n", 0, "fermé"),
        ("---\nname x\n---\n", 2, "clé: valeur"),
        ("---\nname: x\nname: y\n---\n", 3, "double"),
        ("---\n  name: x\n---\n", 2, "indentée"),
        ("---\nstrong:\n\t- x\n---\n", 2, "tabulation"),
        ('---\ntitle: "open\n---\n', 2, "guillemet"),
        ("---\nstrong:\n  - *error\n---\n", 2, "guillemets"),
        ("---\ndescription: Méthode : reproduire\n---\n", 2, "guillemets"),
        ("---\nkeywords: [a, b\n---\n", 2, "une ligne"),
        ("---\nkeywords: [a b c] extra\n---\n", 2, "après"),
        ("---\nkeywords:\n  - a\n  b: c\n---\n", 2, "mélangée"),
    ],
)
def test_refuses_what_it_cannot_read_with_the_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(FrontMatterError) as caught:
        read(text)
    assert caught.value.line == line
    assert fragment in str(caught.value)
