"""A small, strict reader for the front matter of SKILL.md-style files.

Skill front matter is a handful of `key: value` lines and lists of words, so this reads
the subset of YAML such files use and refuses anything else with a line number:

    ---
    name: refactor-sur                 # plain, "double" or 'single' quoted scalars
    description: >                     # folded (>) or literal (|) block scalars
      Several lines folded into one.
    keywords: [refactor, "dette technique"]   # flow lists on one line
    strong:                            # block lists
      - sans changer le comportement
    metadata:                          # keys we do not read are skipped unparsed;
      author: someone                  # a nested mapping under ours reads as NESTED
    ---
    The body, returned untouched.

Values stay strings (no YAML 1.1 surprises such as `no` -> False or `1.10` -> 1.1).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Final

from loki_desktop.core.i18n import _


class Nested:
    """The value of a key holding a nested mapping (which we never read)."""

    def __repr__(self) -> str:
        return "NESTED"


NESTED: Final = Nested()
Value = str | list[str] | Nested

_FENCE = "---"
_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?")
_LIST_ITEM = re.compile(r"-(?:[ \t]+(.*))?")
_BLOCK = re.compile(r"[|>][+-]?")
_COMMENT = re.compile(r"(?:^|[ \t])#.*$")
# a plain YAML scalar cannot start with these (aliases, anchors, tags, block indicators...)
_INDICATORS = ("[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "#", ",", "?")


class FrontMatterError(ValueError):
    """The file is not a skill file we can read; `line` is 1-based (0: the whole file)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line

    def __str__(self) -> str:
        message = super().__str__()
        return (
            _("ligne {line} : {message}").format(line=self.line, message=message)
            if self.line
            else message
        )


def split_front_matter(text: str, keys: Collection[str]) -> tuple[dict[str, Value], str]:
    """The values of `keys` found in the front matter, and the body after it.

    Other keys (another agent's `allowed-tools`, `license`...) must be well-formed lines
    but their values are not read, so their richer YAML cannot make the file fail.
    """
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != _FENCE:
        raise FrontMatterError(_("le fichier doit commencer par une ligne « --- »"), 1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE)
    except StopIteration:
        raise FrontMatterError(_("l'en-tête n'est pas fermé par une ligne « --- »")) from None
    header = [line.rstrip("\r\n") for line in lines[1:end]]
    return _parse(header, 2, keys), "".join(lines[end + 1 :])


def _parse(lines: list[str], first_line: int, keys: Collection[str]) -> dict[str, Value]:
    data: dict[str, Value] = {}
    seen: set[str] = set()
    i = 0
    while i < len(lines):
        number = first_line + i
        line = lines[i]
        if _is_blank(line):
            i += 1
            continue
        if line[0] in " \t":
            raise FrontMatterError(_("ligne indentée inattendue"), number)
        match = _KEY.fullmatch(line.rstrip())
        if match is None:
            raise FrontMatterError(_("une ligne « clé: valeur » était attendue"), number)
        key, raw = match.group(1), (match.group(2) or "")
        if key in seen:
            raise FrontMatterError(_("clé en double : {key}").format(key=key), number)
        seen.add(key)
        block_end = i + 1
        # the lines under a key: indented ones, list items at column 0, empty lines
        while block_end < len(lines) and (
            not lines[block_end].strip()
            or lines[block_end][0] in " \t"
            or lines[block_end].startswith("-")
        ):
            block_end += 1
        if key in keys:
            data[key] = _value(raw, lines[i + 1 : block_end], number)
        i = block_end
    return data


def _value(raw: str, block: list[str], number: int) -> Value:
    """The value of one key from the text after its colon and the lines under it."""
    if "\t" in "".join(line[: len(line) - len(line.lstrip())] for line in block):
        raise FrontMatterError(_("indentation par tabulation (des espaces sont attendus)"), number)
    content = [line for line in block if not _is_blank(line)]
    stripped = raw.strip()
    if _BLOCK.fullmatch(stripped):
        return _block_scalar(block, folded=stripped.startswith(">"))
    if stripped and not stripped.startswith("#"):
        if stripped.startswith("["):
            if content:
                raise FrontMatterError(_("rien n'est attendu sous une liste [ ... ]"), number + 1)
            return _flow_list(stripped, number)
        if stripped[0] in "\"'":
            if content:
                raise FrontMatterError(
                    _("rien n'est attendu sous une valeur entre guillemets"), number + 1
                )
            return _quoted(stripped, number)
        # a plain scalar may continue on indented lines (folded with spaces)
        return " ".join(
            [_plain(stripped, number), *(_plain(line.strip(), number) for line in content)]
        )
    if not content:
        return ""
    items = [_LIST_ITEM.fullmatch(line.strip()) for line in content]
    if all(items):
        return [_scalar((item.group(1) or "").strip(), number) for item in items if item]
    if any(items) or any(line.lstrip().startswith("-") for line in content):
        raise FrontMatterError(_("liste mélangée avec autre chose"), number)
    return NESTED


def _block_scalar(block: list[str], *, folded: bool) -> str:
    content = [line for line in block if line.strip()]
    if not content:
        return ""
    indent = min(len(line) - len(line.lstrip(" ")) for line in content)
    lines = [line[indent:] if line.strip() else "" for line in block]
    if not folded:
        return "\n".join(lines).strip()
    paragraphs = "\n".join(lines).strip().split("\n\n")
    return "\n".join(" ".join(p.split("\n")) for p in paragraphs)


def _scalar(text: str, number: int) -> str:
    if text.startswith(("'", '"')):
        return _quoted(text, number)
    return _plain(text, number)


def _plain(text: str, number: int, *, in_list: bool = False) -> str:
    """An unquoted value; refuses what YAML would read differently (quote it instead)."""
    value = text if in_list else _COMMENT.sub("", text).strip()
    special = value.startswith(_INDICATORS) or ": " in value or value.endswith(":")
    if special or (in_list and any(char in value for char in "[]{}")):
        raise FrontMatterError(
            _("valeur à mettre entre guillemets : « {value} »").format(value=value), number
        )
    return value


def _quoted(text: str, number: int) -> str:
    value, rest = _take_quoted(text, number)
    if _COMMENT.sub("", rest).strip():
        raise FrontMatterError(_("texte après les guillemets fermants"), number)
    return value


def _take_quoted(text: str, number: int) -> tuple[str, str]:
    """One quoted string at the start of `text`: its value and what follows it."""
    quote = text[0]
    out: list[str] = []
    i = 1
    while i < len(text):
        char = text[i]
        if quote == "'" and char == "'":
            if text[i + 1 : i + 2] == "'":  # '' is an escaped quote
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1 :]
        if quote == '"' and char == "\\":
            escaped = text[i + 1 : i + 2]
            out.append({"n": "\n", "t": "\t"}.get(escaped, escaped))
            i += 2
            continue
        if quote == '"' and char == '"':
            return "".join(out), text[i + 1 :]
        out.append(char)
        i += 1
    raise FrontMatterError(_("guillemet non fermé"), number)


def _flow_list(text: str, number: int) -> list[str]:
    """`[a, "b, c", 'd']` on one line, maybe followed by a comment."""
    rest = text[1:].lstrip()
    items: list[str] = []
    while not rest.startswith("]"):
        if not rest:
            raise FrontMatterError(_("une liste [ ... ] doit tenir sur une ligne"), number)
        if rest[0] in "\"'":
            value, rest = _take_quoted(rest, number)
        else:
            cut = min((rest.find(c) for c in ",]" if c in rest), default=len(rest))
            value, rest = _plain(rest[:cut].strip(), number, in_list=True), rest[cut:]
            if not value:
                raise FrontMatterError(_("élément de liste vide"), number)
        items.append(value)
        rest = rest.lstrip()
        if not rest:
            raise FrontMatterError(_("une liste [ ... ] doit tenir sur une ligne"), number)
        if rest.startswith(","):
            rest = rest[1:].lstrip()
        elif not rest.startswith("]"):
            raise FrontMatterError(_("une virgule était attendue dans la liste"), number)
    if _COMMENT.sub("", rest[1:]).strip():
        raise FrontMatterError(_("texte après la fin de la liste"), number)
    return items


def _is_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")
