"""The person's own prompts: plain files in the data folder, with `{{variables}}` to fill.

A prompt is a text file `prompts/NAME.md` (or `.txt`) under the data folder; its name is
the file's. `{{ name }}` marks a variable asked for when the prompt is used (a letter or
an underscore, then letters, digits, `_` or `-`). A `{{` that does not close, or braces
around anything else, make the prompt unusable until it is fixed, said in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.given_files import GivenFileError, GivenFileTooBig, read_given_file
from loki_desktop.core.i18n import _

PROMPTS_FOLDER = "prompts"
SUFFIXES = (".md", ".txt")
MAX_PROMPT_BYTES = 256 * 1024
_NAME = re.compile(r"[^\W\d]\w*(?:-\w+)*")
# one `{{ ... }}` (its inside without braces), or a `{{` that never closes
_MARK = re.compile(r"\{\{([^{}]*)\}\}|\{\{")


class PromptError(ValueError):
    """A prompt cannot be used as asked; the message says why, in one sentence."""


@dataclass(frozen=True, slots=True)
class UserPrompt:
    """One prompt of the person's library."""

    name: str
    path: Path
    text: str
    variables: tuple[str, ...]  # in order of first use

    def fill(self, values: Mapping[str, str]) -> str:
        """The text with every variable replaced; raises PromptError when one is missing
        or a value names no variable."""
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise PromptError(
                _("Le prompt « {name} » attend une valeur pour : {missing}.").format(
                    name=self.name, missing=", ".join(missing)
                )
            )
        unknown = sorted(set(values) - set(self.variables))
        if unknown:
            raise PromptError(
                _("Le prompt « {name} » n'a pas de variable « {variable} ».").format(
                    name=self.name, variable=unknown[0]
                )
            )
        return _MARK.sub(lambda match: values[match.group(1).strip()], self.text)


def prompts_folder(data_home: Path) -> Path:
    return data_home / PROMPTS_FOLDER


def list_prompts(folder: Path) -> tuple[list[UserPrompt], list[str]]:
    """The library's prompts by name, and one sentence per file that cannot be used."""
    prompts: list[UserPrompt] = []
    problems: list[str] = []
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES)
    except OSError:
        return [], []  # no library yet
    for path in paths:
        try:
            prompts.append(read_prompt(path))
        except PromptError as exc:
            problems.append(str(exc))
    return prompts, problems


def find_prompt(folder: Path, name: str) -> UserPrompt:
    """The prompt called `name`; raises PromptError (unknown name, unreadable, broken)."""
    for suffix in SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.exists() and Path(name).name == name:
            return read_prompt(path)
    known, _problems = list_prompts(folder)
    names = ", ".join(p.name for p in known) or _("aucun")
    raise PromptError(
        _("Pas de prompt « {name} » dans {folder} (prompts connus : {names}).").format(
            name=name, folder=folder, names=names
        )
    )


def read_prompt(path: Path) -> UserPrompt:
    """One prompt file, its variables checked; raises PromptError."""
    name = path.stem
    try:
        data = read_given_file(path, MAX_PROMPT_BYTES)
        text = data.decode("utf-8").removeprefix("\ufeff")
    except GivenFileTooBig:
        raise PromptError(
            _("Le prompt « {name} » dépasse {limit} Ko.").format(
                name=name, limit=MAX_PROMPT_BYTES // 1024
            )
        ) from None
    except GivenFileError as exc:
        raise PromptError(str(exc)) from None
    except UnicodeDecodeError:
        raise PromptError(
            _("Le prompt « {name} » n'est pas écrit en UTF-8.").format(name=name)
        ) from None
    return UserPrompt(name, path, text, _variables(name, text))


def _variables(name: str, text: str) -> tuple[str, ...]:
    found: list[str] = []
    for match in _MARK.finditer(text):
        inside = match.group(1)
        variable = inside.strip() if inside is not None else ""
        if inside is None or not _NAME.fullmatch(variable):
            shown = text[match.start() : match.start() + 30].split("\n")[0]
            raise PromptError(
                _(
                    "Le prompt « {name} » a une variable mal écrite : « {shown} » (écrivez "
                    "{example}, un nom sans espace entre doubles accolades)."
                ).format(name=name, shown=shown, example="{{" + _("nom") + "}}")
            )
        if variable not in found:
            found.append(variable)
    return tuple(found)
