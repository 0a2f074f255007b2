"""The elicitation form read from MCP's restricted schemas: defaults, choices, checks."""

from __future__ import annotations

from loki_desktop.core.mcp.elicitation import Choice, ElicitationForm

SCHEMA = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email", "title": "E-mail"},
        "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "ratio": {"type": "number", "default": 0.5},
        "ok": {"type": "boolean", "default": False},
        "plain": {"type": "string", "enum": ["a", "b"], "default": "b"},
        "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]},
        "titled": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}]},
        "many": {
            "type": "array",
            "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]},
            "minItems": 1,
            "default": ["q"],
        },
        "when": {"type": "string", "format": "date"},
    },
    "required": ["email", "titled"],
}


def test_fields_kinds_and_choices_follow_the_schema() -> None:
    form = ElicitationForm.from_schema(SCHEMA)
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "email": "string",
        "count": "integer",
        "ratio": "number",
        "ok": "boolean",
        "plain": "choice",
        "legacy": "choice",
        "titled": "choice",
        "many": "choices",
        "when": "string",
    }
    assert form.field_named("legacy").choices == (Choice("x", "Ex"), Choice("y", "Why"))
    assert form.field_named("titled").choices == (Choice("s", "Small"),)
    assert form.field_named("email").required
    assert not form.field_named("count").required
    assert form.field_named("email").label == "E-mail"


def test_defaults_are_the_schema_defaults() -> None:
    form = ElicitationForm.from_schema(SCHEMA)
    assert form.defaults() == {
        "count": 2,
        "ratio": 0.5,
        "ok": False,
        "plain": "b",
        "many": ["q"],
    }


def test_validation_coerces_and_reports_each_field() -> None:
    form = ElicitationForm.from_schema(SCHEMA)
    content, errors = form.validate(
        {"email": "ada@example.org", "titled": "Small", "count": "4", "ok": "oui", "ratio": "1,5"}
    )
    assert errors == {}
    assert content == {
        "email": "ada@example.org",
        "titled": "s",
        "count": 4,
        "ok": True,
        "ratio": 1.5,
    }
    _content, errors = form.validate(
        {"email": "nope", "count": 9, "plain": "z", "many": [], "when": "31/12/2025"}
    )
    assert set(errors) == {"email", "titled", "count", "plain", "when"}
    assert errors["titled"] == "Ce champ est obligatoire."


def test_a_terminal_answer_is_parsed_as_the_field_type() -> None:
    form = ElicitationForm.from_schema(SCHEMA)
    assert form.parse("ok", "non") is False
    assert form.parse("count", "3") == 3
    assert form.parse("many", "p, q") == ["p", "q"]
    assert form.parse("legacy", "Why") == "y"


def test_complete_fills_left_out_fields_with_defaults_but_not_cleared_ones() -> None:
    form = ElicitationForm.from_schema(SCHEMA)
    content, errors = form.complete({"email": "a@b.fr", "titled": "s", "ratio": ""})
    assert errors == {}
    assert content == {
        "email": "a@b.fr",
        "titled": "s",
        "count": 2,
        "ok": False,
        "plain": "b",
        "many": ["q"],
    }
