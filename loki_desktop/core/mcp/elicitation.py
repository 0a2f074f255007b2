"""An MCP elicitation form: the server's requested schema read into fields, defaults, checks.

    form = ElicitationForm.from_schema(params.requested_schema)
    form.defaults()                      -> {"name": "Ada", "count": 3}   (the schema's defaults)
    content, errors = form.validate({"name": "Ada", "count": "4"})
        content: the values to send back (types coerced), errors: {field: French sentence}
    content, errors = form.complete({"name": "Ada"})
        the same, the schema's defaults filling the fields left out (SEP-1034): what is sent
        to the server whatever answered (the window, the terminal, a script)
    form.parse(field, "oui")             -> True  (a terminal answer as the field's type)

Plain values only (no `mcp` import): the window's dialog, `ask --interactive` and the
conformance adapter all build the answer through this one class. The schema is MCP's
restricted subset (2025-11-25, SEP-1330 and SEP-1034): flat properties of type string
(formats email, uri, date, date-time; minLength, maxLength), number / integer (minimum,
maximum), boolean, single-select enums (`enum`, `enum` + legacy `enumNames`, `oneOf` of
{const, title}) and multi-select arrays (`items.enum` or `items.anyOf`; minItems, maxItems).
A property of another shape is kept as free text.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from loki_desktop.core.i18n import _

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
Value = str | int | float | bool | list[str] | None

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_TRUE = {"true", "1", "oui", "o", "yes", "y", "vrai"}
_FALSE = {"false", "0", "non", "n", "no", "faux"}


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str


@dataclass(frozen=True, slots=True)
class FormField:
    """One property of the requested schema, as a form shows it."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: Value = None
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    format: str = ""  # email, uri, date, date-time

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class ElicitationForm:
    """The fields of one form request, in the schema's order."""

    fields: tuple[FormField, ...] = ()
    title: str = ""
    description: str = ""
    _by_name: dict[str, FormField] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any] | None) -> ElicitationForm:
        schema = schema or {}
        properties = schema.get("properties")
        required = schema.get("required")
        wanted = set(required) if isinstance(required, list) else set()
        fields: list[FormField] = []
        if isinstance(properties, Mapping):
            for name, prop in properties.items():
                if isinstance(prop, Mapping):
                    fields.append(_read_field(str(name), prop, str(name) in wanted))
        return cls(
            tuple(fields),
            str(schema.get("title") or ""),
            str(schema.get("description") or ""),
            {f.name: f for f in fields},
        )

    def field_named(self, name: str) -> FormField:
        return self._by_name[name]

    def defaults(self) -> dict[str, Value]:
        """The values the schema proposes (only fields that have a usable default)."""
        values: dict[str, Value] = {}
        for item in self.fields:
            if item.default is not None and _check(item, item.default) is None:
                values[item.name] = item.default
        return values

    def validate(self, values: Mapping[str, Any]) -> tuple[dict[str, Value], dict[str, str]]:
        """The content to send (each value as its field's type) and the errors by field.

        Empty values ("" or None or []) count as absent: an absent required field is an error,
        an absent optional one is left out of the content.
        """
        content: dict[str, Value] = {}
        errors: dict[str, str] = {}
        for item in self.fields:
            raw = values.get(item.name)
            if _empty(raw):
                if item.required:
                    errors[item.name] = _("Ce champ est obligatoire.")
                continue
            try:
                value = _coerce(item, raw)
            except ValueError as exc:
                errors[item.name] = str(exc)
                continue
            problem = _check(item, value)
            if problem is not None:
                errors[item.name] = problem
            else:
                content[item.name] = value
        return content, errors

    def complete(self, values: Mapping[str, Any]) -> tuple[dict[str, Value], dict[str, str]]:
        """`validate` with the defaults filling the fields absent from `values` (a field
        present but emptied stays empty: the person cleared it)."""
        return self.validate({**self.defaults(), **values})

    def parse(self, name: str, text: str) -> Value:
        """A typed answer (a terminal line) as the field's value; raises ValueError (French)."""
        item = self.field_named(name)
        if item.kind == "choices":
            return [part.strip() for part in text.split(",") if part.strip()]
        return _coerce(item, text.strip())


def _read_field(name: str, prop: Mapping[str, Any], required: bool) -> FormField:
    kind_name = prop.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": str(prop.get("title") or ""),
        "description": str(prop.get("description") or ""),
        "required": required,
    }
    choices = _choices(prop)
    if kind_name == "array":
        items = prop.get("items")
        options = _choices(items) if isinstance(items, Mapping) else ()
        default = prop.get("default")
        return FormField(
            kind="choices",
            choices=options,
            default=[str(v) for v in default] if isinstance(default, list) else None,
            min_items=_int(prop.get("minItems")),
            max_items=_int(prop.get("maxItems")),
            **common,
        )
    if choices:
        default = prop.get("default")
        return FormField(
            kind="choice",
            choices=choices,
            default=str(default) if default is not None else None,
            **common,
        )
    if kind_name in ("number", "integer"):
        return FormField(
            kind=kind_name,
            default=_number_default(prop.get("default"), kind_name),
            minimum=_float(prop.get("minimum")),
            maximum=_float(prop.get("maximum")),
            **common,
        )
    if kind_name == "boolean":
        default = prop.get("default")
        return FormField(
            kind="boolean", default=default if isinstance(default, bool) else None, **common
        )
    default = prop.get("default")
    return FormField(
        kind="string",
        default=default if isinstance(default, str) else None,
        min_length=_int(prop.get("minLength")),
        max_length=_int(prop.get("maxLength")),
        format=str(prop.get("format") or ""),
        **common,
    )


def _choices(prop: Mapping[str, Any]) -> tuple[Choice, ...]:
    """Options of a single-select (`enum`, legacy `enumNames`, `oneOf`) or multi-select items
    (`enum`, `anyOf`) property."""
    listed = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(listed, list):
        return tuple(
            Choice(str(o["const"]), str(o.get("title") or o["const"]))
            for o in listed
            if isinstance(o, Mapping) and "const" in o
        )
    values = prop.get("enum")
    if not isinstance(values, list):
        return ()
    names = prop.get("enumNames")
    labels = names if isinstance(names, list) and len(names) == len(values) else values
    return tuple(Choice(str(v), str(label)) for v, label in zip(values, labels, strict=True))


def _coerce(item: FormField, raw: Any) -> Value:
    match item.kind:
        case "boolean":
            if isinstance(raw, bool):
                return raw
            word = str(raw).strip().lower()
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
            raise ValueError(_("Répondez oui ou non."))
        case "integer":
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            try:
                number = float(str(raw).replace(",", "."))
            except ValueError:
                raise ValueError(_("Un nombre entier est attendu.")) from None
            if not number.is_integer():
                raise ValueError(_("Un nombre entier est attendu."))
            return int(number)
        case "number":
            if isinstance(raw, int | float) and not isinstance(raw, bool):
                return raw
            try:
                number = float(str(raw).replace(",", "."))
            except ValueError:
                raise ValueError(_("Un nombre est attendu.")) from None
            if not math.isfinite(number):
                raise ValueError(_("Un nombre est attendu."))
            return int(number) if number.is_integer() else number
        case "choices":
            if isinstance(raw, str):
                return [raw]
            if isinstance(raw, Sequence):
                return [str(v) for v in raw]
            raise ValueError(_("Une liste de choix est attendue."))
        case "choice":
            text = str(raw)
            # a label typed (a terminal) stands for its value
            for choice in item.choices:
                if text in (choice.value, choice.label):
                    return choice.value
            return text
        case _:
            return str(raw)


def _check(item: FormField, value: Value) -> str | None:
    """Why `value` does not fit the field (French), or None."""
    if item.kind == "choice" and item.choices and value not in {c.value for c in item.choices}:
        return _("Choisissez l'une des valeurs proposées.")
    if item.kind == "choices" and isinstance(value, list):
        allowed = {c.value for c in item.choices}
        if allowed and any(v not in allowed for v in value):
            return _("Choisissez parmi les valeurs proposées.")
        if item.min_items is not None and len(value) < item.min_items:
            return _("Choisissez-en au moins {n}.").format(n=item.min_items)
        if item.max_items is not None and len(value) > item.max_items:
            return _("Choisissez-en au plus {n}.").format(n=item.max_items)
    if item.kind in ("number", "integer") and isinstance(value, int | float):
        if item.minimum is not None and value < item.minimum:
            return _("La valeur doit être au moins {n}.").format(n=f"{item.minimum:g}")
        if item.maximum is not None and value > item.maximum:
            return _("La valeur doit être au plus {n}.").format(n=f"{item.maximum:g}")
    if item.kind == "string" and isinstance(value, str):
        return _check_text(item, value)
    return None


def _check_text(item: FormField, value: str) -> str | None:
    if item.min_length is not None and len(value) < item.min_length:
        return _("Au moins {n} caractères.").format(n=item.min_length)
    if item.max_length is not None and len(value) > item.max_length:
        return _("Au plus {n} caractères.").format(n=item.max_length)
    if item.format == "email" and not _EMAIL.fullmatch(value):
        return _("Une adresse e-mail est attendue.")
    if item.format == "uri" and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:\S+$", value):
        return _("Une adresse (URI) est attendue, par exemple https://…")
    if item.format == "date":
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return _("Une date AAAA-MM-JJ est attendue.")
    if item.format == "date-time":
        try:
            datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return _("Une date et une heure ISO 8601 sont attendues.")
    return None


def _empty(raw: Any) -> bool:
    return raw is None or (isinstance(raw, str) and not raw.strip()) or raw == []


def _number_default(value: Any, kind: str) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if kind == "integer":
        return int(value) if float(value).is_integer() else None
    return value


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
