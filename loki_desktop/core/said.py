"""A tool card's summary kept as facts (its French template and values), worded when shown.

The tools sum up each call in one line for people ("app.js écrit (68 octets)"). Stored as
words, a reopened conversation shows them in the language they were written in; stored as
facts, the window words them again in the language of today. The tools import `_` and
`ngettext` from here: the same calls (pybabel extracts them as usual), whose result is the
text in the language of now *and* remembers its template; `.format()` keeps it with its
values. `facts_of()` gives the facts to store, `word()` the text to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loki_desktop.core import i18n

Value = str | int | float


@dataclass(frozen=True, slots=True)
class Facts:
    """A summary's French template(s), its count (a plural) and its values."""

    template: str
    plural: str = ""
    count: int = 0
    values: tuple[tuple[str, Value], ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"template": self.template, "values": dict(self.values)}
        if self.plural:
            data["plural"], data["count"] = self.plural, self.count
        return data

    @classmethod
    def from_json(cls, data: object) -> Facts | None:
        """What to_json wrote; None for anything else (an older row, a damaged one)."""
        if not isinstance(data, dict) or not isinstance(data.get("template"), str):
            return None
        values = data.get("values")
        kept = tuple(
            (str(k), v)
            for k, v in (values.items() if isinstance(values, dict) else ())
            if isinstance(v, str | int | float)
        )
        plural, count = data.get("plural"), data.get("count")
        return cls(
            data["template"],
            plural if isinstance(plural, str) else "",
            count if type(count) is int else 0,
            kept,
        )


class Said(str):
    """A translated text that remembers the template it came from (and its values)."""

    facts: Facts

    def __new__(cls, text: str, facts: Facts) -> Said:
        said = super().__new__(cls, text)
        said.facts = facts
        return said

    def format(self, *args: object, **values: Any) -> Said:
        text = str.format(self, *args, **values)
        if args:  # positional values cannot be worded again: the text only
            return Said(text, Facts(""))
        kept = tuple((k, v) for k, v in values.items() if isinstance(v, str | int | float))
        facts = Facts(self.facts.template, self.facts.plural, self.facts.count, kept)
        return Said(text, facts)


def _(message: str) -> Said:
    return Said(i18n._(message), Facts(message))


def ngettext(singular: str, plural: str, count: int) -> Said:
    return Said(i18n.ngettext(singular, plural, count), Facts(singular, plural, count))


def facts_of(summary: str) -> Facts | None:
    """The facts of a summary made here (None: words from elsewhere, kept as they are)."""
    facts = summary.facts if isinstance(summary, Said) else None
    return facts if facts is not None and facts.template else None


def word(facts: Facts) -> str:
    """The summary in the language in use now ("" when its template no longer fits)."""
    values = dict(facts.values)
    if facts.plural:
        text = i18n.ngettext(facts.template, facts.plural, facts.count)
    else:
        text = i18n._(facts.template)
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):  # a template changed since: the stored words
        return ""
