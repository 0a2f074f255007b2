"""Loading skill files: the built-in ones shipped in the package and the user's own folder.

A skill file is markdown with a front matter (see core.skills.frontmatter):

    name         required, lowercase words joined by hyphens (the SKILL.md convention)
    description  required, one or two sentences saying what the method is for
    title        optional, the label shown to the user (default: from the name)
    title_en, description_en   optional, what an English window shows instead (the
                 built-in skills are written in French; core.i18n picks the language)
    keywords     optional, weak routing terms (1 point each)
    strong       optional, strong routing terms (3 points each)
    pairs        optional, "action words | object words" (3 points each)
    extensions   optional, file extensions such as .csv (2 points each)

The body is injected as is. A file with only `name` and `description` (a skill written for
another agent) loads too; the router then picks it when the message names it.
User skills are `*.md` files or `<folder>/SKILL.md` in the user's skills folder; a user
skill named like a built-in one replaces it. A file that cannot be used is skipped and
reported, never fatal.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.i18n import _, language
from loki_desktop.core.skills.examples import ExampleModel
from loki_desktop.core.skills.frontmatter import NESTED, FrontMatterError, split_front_matter
from loki_desktop.core.skills.model import Skill
from loki_desktop.core.skills.router import Router
from loki_desktop.core.skills.terms import TermError, parse_pair, parse_term

# The top-level skills/ folder, installed as this package (see setup.py).
BUILTIN_PACKAGE = "loki_desktop.skills"
EXAMPLES_FOLDER = "examples"
MAX_FILE_BYTES = 64_000  # a skill is a short method; anything bigger is a mistake
MAX_BODY_CHARS = 12_000  # the body goes into every matching request: keep the context for work
MAX_NAME = 64  # SKILL.md convention
MAX_DESCRIPTION = 1024  # SKILL.md convention

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TEXT_KEYS = ("name", "title", "description", "title_en", "description_en")
_LIST_KEYS = ("keywords", "strong", "pairs", "extensions")


class SkillFileError(ValueError):
    """Why a skill file was skipped (a French sentence for the user)."""


@dataclass(frozen=True, slots=True)
class SkillCatalogue:
    """The skills found, in routing order, and one sentence per file that was skipped."""

    skills: tuple[Skill, ...]
    problems: tuple[str, ...] = ()


def parse_skill(text: str, source: str, *, builtin: bool) -> Skill:
    """A skill from the text of its file; raises SkillFileError when it cannot be used."""
    try:
        data, body = split_front_matter(text, _TEXT_KEYS + _LIST_KEYS)
    except FrontMatterError as exc:
        raise SkillFileError(str(exc)) from None
    texts = {key: _text(data.get(key, ""), key) for key in _TEXT_KEYS}
    lists = {key: _list(data.get(key, []), key) for key in _LIST_KEYS}
    name = texts["name"]
    if not name:
        raise SkillFileError(_("le champ « name » manque"))
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise SkillFileError(
            _(
                "nom invalide « {name} » : des minuscules, chiffres et tirets "
                "({n} caractères au plus)"
            ).format(name=name, n=MAX_NAME)
        )
    if not texts["description"]:
        raise SkillFileError(_("le champ « description » manque"))
    if len(texts["description"]) > MAX_DESCRIPTION:
        raise SkillFileError(
            _("description trop longue ({n} caractères au plus)").format(n=MAX_DESCRIPTION)
        )
    body = body.strip()
    if not body:
        raise SkillFileError(_("le corps de la méthode est vide"))
    if len(body) > MAX_BODY_CHARS:
        raise SkillFileError(
            _("méthode trop longue : {n} caractères (au plus {max})").format(
                n=len(body), max=MAX_BODY_CHARS
            )
        )
    # "csv" and ".csv" both mean the extension (the router matches it with its dot)
    lists["extensions"] = tuple(
        ext if ext.startswith(".") else f".{ext}" for ext in lists["extensions"]
    )
    try:
        for term in (*lists["keywords"], *lists["strong"], *lists["extensions"]):
            parse_term(term)
        for pair in lists["pairs"]:
            parse_pair(pair)
    except TermError as exc:
        raise SkillFileError(str(exc)) from None
    english = language() == "en"
    return Skill(
        name=name,
        title=(english and texts["title_en"])
        or texts["title"]
        or name.replace("-", " ").capitalize(),
        description=(english and texts["description_en"]) or texts["description"],
        body=body,
        keywords=lists["keywords"],
        strong=lists["strong"],
        pairs=lists["pairs"],
        extensions=lists["extensions"],
        source=source,
        builtin=builtin,
    )


def load_builtin_skills() -> SkillCatalogue:
    """The skills shipped in the package (found through importlib.resources, so installs work)."""
    return _builtin_skills(language())


@functools.cache  # package files: they do not change while the app runs (one per language)
def _builtin_skills(_language: str) -> SkillCatalogue:
    folder = resources.files(BUILTIN_PACKAGE)
    entries = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".md") and entry.is_file()),
        key=lambda entry: entry.name,
    )
    return _load_all(
        [(entry, f"loki_desktop/skills/{entry.name}") for entry in entries],
        builtin=True,
    )


def load_user_skills(folder: Path) -> SkillCatalogue:
    """The user's skills: `folder/*.md` and `folder/*/SKILL.md` (a missing folder is empty)."""
    try:
        children = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError as exc:
        return SkillCatalogue((), (_skipped(str(folder), exc.strerror or str(exc)),))
    # a `.md` that is no regular file (a pipe, a link to a device, a loop) is named as
    # skipped by _read, not waited on
    files = [child for child in children if child.suffix.lower() == ".md" and not child.is_dir()]
    files += [
        child / "SKILL.md"
        for child in children
        if child.suffix.lower() != ".md" and (child / "SKILL.md").is_file()
    ]
    files.sort()
    return _load_all([(path, str(path)) for path in files], builtin=False)


def load_skills(user_folder: Path | None) -> SkillCatalogue:
    """Built-in skills, then the user's; a user skill replaces a built-in of the same name."""
    builtin = load_builtin_skills()
    if user_folder is None:
        return builtin
    user = load_user_skills(user_folder)
    replaced = {skill.name for skill in user.skills}
    skills = [s for s in builtin.skills if s.name not in replaced] + list(user.skills)
    return SkillCatalogue(tuple(skills), builtin.problems + user.problems)


def load_router(user_folder: Path | None) -> tuple[Router, tuple[str, ...]]:
    """A router over the built-in and user skills, and the notices about skipped files."""
    catalogue = load_skills(user_folder)
    return _router(catalogue.skills), catalogue.problems


@functools.lru_cache(maxsize=8)
def _router(skills: tuple[Skill, ...]) -> Router:
    """The window builds an agent per message: the same skills reuse one router (~1 ms to
    build). The user's files are still read each time, so an edit applies at once."""
    return Router(skills, load_examples())


@dataclass(frozen=True, slots=True)
class LabelledRequest:
    """One line of an example file: the skill it needs (or `none`), its language, its text."""

    file: str
    label: str
    language: str
    message: str


def read_examples() -> tuple[LabelledRequest, ...]:
    """The labelled requests in skills/examples/*.tsv (`skill-or-none<TAB>message`, an
    optional language column between them; "\\n" stands for a line break)."""
    folder = resources.files(BUILTIN_PACKAGE).joinpath(EXAMPLES_FOLDER)
    rows = []
    for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
        if not entry.name.endswith(".tsv"):
            continue
        for line in entry.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                label, *language, message = line.split("\t")
                text = message.replace("\\n", "\n")
                rows.append(LabelledRequest(entry.name, label, "".join(language), text))
    return tuple(rows)


@functools.cache  # package files: they do not change while the app runs
def load_examples() -> ExampleModel:
    """The model of the labelled requests the router learns resemblances from."""
    return ExampleModel((row.label, row.message) for row in read_examples())


def _load_all(files: list[tuple[Traversable, str]], *, builtin: bool) -> SkillCatalogue:
    skills: dict[str, Skill] = {}
    problems: list[str] = []
    for file, source in files:
        try:
            skill = parse_skill(_read(file), source, builtin=builtin)
        except SkillFileError as exc:
            problems.append(_skipped(source, str(exc)))
            continue
        if skill.name in skills:
            problems.append(
                _skipped(
                    source,
                    _("le nom « {name} » est déjà pris par {other}").format(
                        name=skill.name, other=skills[skill.name].source
                    ),
                )
            )
            continue
        skills[skill.name] = skill
    return SkillCatalogue(tuple(skills.values()), tuple(problems))


def _read(file: Traversable) -> str:
    too_big = SkillFileError(_("fichier trop gros (plus de {n} octets)").format(n=MAX_FILE_BYTES))
    try:
        if isinstance(file, Path):  # a person's (or a repository's) file: core.bounded_read
            raw = read_bounded(file, MAX_FILE_BYTES)
        else:  # inside the installed package
            with file.open("rb") as stream:
                raw = stream.read(MAX_FILE_BYTES + 1)
    except FileTooBig:
        raise too_big from None
    except NotRegularFile:
        raise SkillFileError(
            _("ce n'est pas un fichier ordinaire (un tube, une socket ou un périphérique)")
        ) from None
    except OSError as exc:
        raise SkillFileError(exc.strerror or str(exc)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise too_big
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileError(_("le fichier n'est pas en UTF-8")) from None


def _text(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise SkillFileError(_("« {key} » doit être un texte").format(key=key))
    return " ".join(value.split())


def _list(value: object, key: str) -> tuple[str, ...]:
    if value is NESTED or not isinstance(value, (str, list)):
        raise SkillFileError(_("« {key} » doit être une liste").format(key=key))
    # "keywords: bug, crash" is a common shorthand for a list
    items = value.split(",") if isinstance(value, str) else value
    return tuple(item.strip() for item in items if item.strip())


def _skipped(source: str, reason: str) -> str:
    return _("Méthode ignorée ({source}) : {reason}").format(source=source, reason=reason)
