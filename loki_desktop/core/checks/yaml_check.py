"""The YAML check: PyYAML's parser (indentation, structure) and keys given twice in a mapping."""

from __future__ import annotations

import asyncio
import re

from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.source import Source, decode_utf8
from loki_desktop.core.events import Problem
from loki_desktop.core.i18n import N_, _

MAX_DUPLICATES = 20
# A line that is a template directive, or a value that is an unquoted one: `{{- if … }}`,
# `{% for … %}`, `key: {{ .Values.x }}` (quoted "{{ … }}" values are plain YAML strings).
_TEMPLATE_LINE = re.compile(r"^\s*(?:-\s+)?(?:[^\s:#'\"][^:#]*:\s+)?\{[{%]", re.MULTILINE)
# libyaml's words for the mistakes people make most, said plainly.
_PLAIN = {
    "mapping values are not allowed in this context": N_(
        "« : » inattendu ici : l'indentation de cette ligne ne suit pas celle de la clé au-dessus"
    ),
    "found character that cannot start any token": N_(
        "caractère interdit ici (une tabulation "
        "dans l'indentation ? YAML n'accepte que des espaces)"
    ),
    "did not find expected key": N_(
        "clé attendue ici : l'indentation ne correspond à aucun niveau au-dessus"
    ),
    "did not find expected '-' indicator": N_(
        "« - » attendu : une liste et une table sont mélangées au même niveau"
    ),
    "did not find expected ',' or ']'": N_(
        "« , » ou « ] » attendu : une liste entre crochets n'est pas fermée"
    ),
    "did not find expected ',' or '}'": N_(
        "« , » ou « } » attendu : une table entre accolades n'est pas fermée"
    ),
    "found unexpected end of stream": N_(
        "fin de fichier inattendue : un guillemet n'est pas fermé"
    ),
    "found undefined alias": N_("alias non défini (aucune ancre « & » de ce nom)"),
}


async def check_yaml(source: Source) -> CheckResult:
    text = decode_utf8(source.data)
    if isinstance(text, Problem):
        return CheckResult((text,))
    if _TEMPLATE_LINE.search(text):
        # a Helm chart or Jinja template becomes YAML only once rendered
        return CheckResult(skipped=_("modèle (Helm, Jinja) : ce n'est du YAML qu'une fois rendu"))
    return CheckResult(tuple(await asyncio.to_thread(yaml_problems, text)))


def yaml_problems(text: str) -> list[Problem]:
    """Every document is composed, not constructed: custom tags (!Ref, !!python/…) are
    fine, and nothing a tag names is ever built or run."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when the wheel has it
    problems: list[Problem] = []
    try:
        for document in yaml.compose_all(text, Loader=loader):
            if document is not None:
                problems += _duplicates(document)
    except yaml.MarkedYAMLError as exc:
        problems.append(_parse_problem(exc))
    except yaml.YAMLError as exc:
        problems.append(Problem(1, 1, _("YAML invalide : {error}").format(error=exc)))
    except RecursionError:
        problems.append(Problem(1, 1, _("YAML invalide : imbrication trop profonde")))
    return sorted(problems, key=lambda p: (p.line, p.col))[: MAX_DUPLICATES + 1]


def _parse_problem(exc: object) -> Problem:
    import yaml

    assert isinstance(exc, yaml.MarkedYAMLError)
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = exc.problem or exc.context or "?"
    plain = _PLAIN.get(problem.split(":")[0].strip())
    if plain is not None:
        return Problem(line, col, _("YAML invalide : {error}").format(error=_(plain)))
    if exc.context and exc.problem and exc.context_mark is not None:
        problem = f"{exc.problem} ({exc.context}, line {exc.context_mark.line + 1})"
    return Problem(line, col, _("YAML invalide : {error}").format(error=problem))


def _duplicates(root: object) -> list[Problem]:
    """A key given twice: YAML forbids it, and loaders silently keep the last value."""
    import yaml

    problems: list[Problem] = []
    stack = [root]
    seen_nodes: set[int] = set()  # anchors and aliases may share a node
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first_line: dict[tuple[str, str], int] = {}
            for key, value in node.value:
                stack.append(value)
                if not isinstance(key, yaml.ScalarNode) or key.value == "<<":
                    continue  # merge keys may repeat; complex keys are rare
                ident = (key.tag, key.value)
                if ident in first_line:
                    message = _("clé « {key} » en double (déjà ligne {line})").format(
                        key=key.value, line=first_line[ident]
                    )
                    mark = key.start_mark
                    problems.append(Problem(mark.line + 1, mark.column + 1, message))
                else:
                    first_line[ident] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return problems
