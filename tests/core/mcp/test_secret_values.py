"""The rules that tell a secret by its name, its value or its place (no process, no file)."""

from __future__ import annotations

import pytest

from loki_desktop.core.mcp.config import is_secret_name, is_secret_param
from loki_desktop.core.mcp.placeholders import lift_command, lift_url, mask_command
from loki_desktop.core.mcp.secret_values import mask


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GH_PAT", True),
        ("AUTH", True),
        ("X-Auth", True),
        ("xAuthToken", True),
        ("DB_PASS", True),
        ("PASSPHRASE", True),
        ("OAUTH", True),
        ("AUTH_USERNAME", False),  # searxng's user name: not a secret
        ("AUTH_URL", False),
        ("OAUTH_CLIENT_ID", False),
        ("GIT_AUTHOR_NAME", False),
        ("PATH", False),
        ("PASSTHROUGH", False),
        ("BYPASS_CACHE", False),
        ("COMPASS", False),
        ("GHPAT", True),
        ("githubPat", True),
        ("NODE_COMPAT", False),
    ],
)
def test_looser_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


@pytest.mark.parametrize(
    "value",
    [
        "http://me:pw-1234@h:8888",
        "postgres://app:p@ss@h/db",  # a raw "@" in the password
        "ghp_" + "x" * 36,
        "Bearer opaque-value",
        "token glpat-abcdefghij0123456789",
    ],
)
def test_values_that_are_secrets_whatever_their_name(value: str) -> None:
    assert is_secret_param("NOTE", value)
    assert "•" in mask(value)


@pytest.mark.parametrize(
    "value",
    ["http://127.0.0.1:8888", "https://me@h/mcp", "${GITHUB_TOKEN}", "task-12345678", "Bearer x"],
)
def test_values_that_are_not(value: str) -> None:
    assert not is_secret_param("NOTE", value)
    assert mask(value) == value


def test_the_whole_url_password_is_masked_even_with_a_raw_at_sign() -> None:
    assert mask("postgres://app:p@ss@h/db") == "postgres://app:••••@h/db"


def test_a_port_or_a_package_after_dash_p_is_not_a_password() -> None:
    same = [
        ("docker", "run", "-p", "8080:80", "img"),
        ("npx", "-y", "-p", "typescript", "tsc"),
        ("npx", "-p", "@scope/pkg", "srv"),
        ("srv", "-p", "127.0.0.1:8080:80/tcp"),
    ]
    for command in same:
        assert lift_command(command, {}) == (command, {})
    lifted, new = lift_command(("npx", "-y", "mysql-mcp", "-p", "pw-1"), {})
    assert lifted[-2:] == ("-p", "${PASSWORD}")
    assert new == {"PASSWORD": "pw-1"}


def test_a_value_found_in_an_argument_is_named_after_what_holds_it() -> None:
    command = (
        "srv",
        "--db",
        "postgres://u:pw-2@h/db",
        "DB_URL=mysql://u:pw-3@h/db",
        "sk-" + "a" * 20,
    )
    lifted, new = lift_command(command, {})
    assert lifted == (
        "srv",
        "--db",
        "postgres://u:${DB_PASSWORD}@h/db",
        "DB_URL=mysql://u:${DB_URL_PASSWORD}@h/db",
        "${TOKEN}",
    )
    assert new == {"DB_PASSWORD": "pw-2", "DB_URL_PASSWORD": "pw-3", "TOKEN": "sk-" + "a" * 20}
    assert mask_command(command)[2] == "postgres://u:••••@h/db"


def test_a_token_in_a_urls_path_or_user_is_moved() -> None:
    url, new = lift_url("https://ghp_abcdefgh12345678@h.example/mcp/sk-abcdefgh12345678", {})
    assert url == "https://${TOKEN}@h.example/mcp/${TOKEN_2}"
    assert set(new.values()) == {"ghp_abcdefgh12345678", "sk-abcdefgh12345678"}


def test_a_servers_auth_challenge_is_not_taken_for_a_credential() -> None:
    text = 'Bearer error="invalid_token", error_description="Authentication required"'
    assert mask(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('{"token": "opaque-1234"}', '{"token": "••••"}'),
        (
            '{"auth": {"apiKey":"nested-5678"}, "region": "eu"}',
            '{"auth": {"apiKey":"••••"}, "region": "eu"}',
        ),
        ('[{"password": "a\\"b"}]', '[{"password": "••••"}]'),  # an escaped quote inside
        ('{"user": "alice", "url": "https://h"}', '{"user": "alice", "url": "https://h"}'),
    ],
)
def test_secret_values_inside_a_json_argument(text: str, masked: str) -> None:
    assert mask(text) == masked


def test_a_json_argument_loses_its_secret_to_a_placeholder() -> None:
    command = ["srv", "--config", '{"token": "opaque-1234", "region": "eu"}']
    lifted, secrets = lift_command(command, {})
    assert "opaque-1234" not in " ".join(lifted)
    assert list(secrets.values()) == ["opaque-1234"]
    (name,) = secrets
    assert lifted[2] == '{"token": "${' + name + '}", "region": "eu"}'
