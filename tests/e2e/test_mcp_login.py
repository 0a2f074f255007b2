"""`loki-desktop mcp login ID` / `mcp logout ID` as a person runs them, against a real MCP
server that is its own OAuth authorization server (tests/fakes/mcp_servers/oauth_server.py).

The test plays the person: it reads the URL the command prints, and follows it as the browser
would (httpx); the redirect lands on the command's loopback listener. $BROWSER is a command
that does nothing, so `webbrowser.open` runs for real without opening anything.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import PYTHON, cli_env
from tests.e2e.test_mcp_e2e import FILE_KEYRING, files_containing, loki
from tests.fakes.oauth_process import OAuthServer


@pytest.fixture
def oauth_url() -> Iterator[str]:
    server = OAuthServer()
    yield server.url
    server.close()


def test_login_through_the_browser_then_logout(
    loki_home: Path, tmp_path: Path, oauth_url: str
) -> None:
    keyring_file = tmp_path / "keyring.json"  # the test keyring, outside $LOKI_HOME
    env = {
        "PYTHON_KEYRING_BACKEND": FILE_KEYRING,
        "LOKI_TEST_KEYRING_FILE": str(keyring_file),
        "BROWSER": "true",  # webbrowser runs `true URL`: the test is the browser
    }
    added = loki(loki_home, "mcp", "add", "remote", "--url", oauth_url, "--enable", env=env)
    assert added.returncode == 0, added.stderr
    tested = loki(loki_home, "mcp", "test", "remote", env=env)
    assert tested.returncode == 1
    assert "Connexion requise" in tested.stderr
    assert "mcp login remote" in tested.stderr

    login = subprocess.Popen(
        [PYTHON, "-m", "loki_desktop", "mcp", "login", "remote"],
        env=cli_env(loki_home, **env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert login.stdout is not None
        line = login.stdout.readline()  # waits for the command, however slow the machine
        assert "http://127.0.0.1:" in line, line
        url = line.split(" : ", 1)[1].strip()
        with httpx.Client(follow_redirects=True, trust_env=False) as browser:
            page = browser.get(url)
        assert "Connexion réussie" in page.text
        out, err = login.communicate(timeout=120)
    finally:
        if login.poll() is None:
            login.kill()
            login.communicate()
    assert login.returncode == 0, err
    assert "✓ Connecté à remote" in out
    assert "Outils : whoami, raise_the_bar." in out

    stored = json.loads(keyring_file.read_text())["loki-desktop/mcp/remote/oauth"]
    token = json.loads(stored)["tokens"]["access_token"]
    assert files_containing(loki_home, token) == []  # in the keyring, nowhere in Loki's files
    tested = loki(loki_home, "mcp", "test", "remote", env=env)
    assert tested.returncode == 0, tested.stderr
    assert "whoami" in tested.stdout

    logout = loki(loki_home, "mcp", "logout", "remote", env=env)
    assert logout.returncode == 0, logout.stderr
    assert "access_token" not in keyring_file.read_text()
    assert loki(loki_home, "mcp", "test", "remote", env=env).returncode == 1


def test_enterprise_login_signs_in_at_the_identity_provider(
    loki_home: Path, tmp_path: Path
) -> None:
    """`mcp login ID --enterprise`: the authorization server the MCP server names is shown and
    kept, the page that opens is the identity provider's, the client secret (typed on stdin)
    and the sign-in go to the keyring (tests/fakes/mcp_servers/enterprise_server.py)."""
    from tests.fakes.mcp_servers.enterprise_server import AS_CLIENT, AS_SECRET, IDP_CLIENT
    from tests.fakes.oauth_process import EnterpriseServers

    servers = EnterpriseServers()
    keyring_file = tmp_path / "keyring.json"
    env = {
        "PYTHON_KEYRING_BACKEND": FILE_KEYRING,
        "LOKI_TEST_KEYRING_FILE": str(keyring_file),
        "BROWSER": "true",
    }
    try:
        added = loki(loki_home, "mcp", "add", "corp", "--url", servers.url, "--enable", env=env)
        assert added.returncode == 0, added.stderr
        login = subprocess.Popen(
            [PYTHON, "-m", "loki_desktop", "mcp", "login", "corp", "--enterprise",
             "--idp-issuer", servers.idp, "--idp-client-id", IDP_CLIENT,
             "--client-id", AS_CLIENT, "--client-secret"],
            env=cli_env(loki_home, **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            assert login.stdin is not None
            assert login.stdout is not None
            login.stdin.write(AS_SECRET + "\n")
            login.stdin.close()
            login.stdin = None  # read: communicate() below must not flush it
            announced = login.stdout.readline()
            assert servers.auth_server in announced, announced
            line = login.stdout.readline()
            url = line.split(" : ", 1)[1].strip()
            assert url.startswith(f"{servers.idp}/authorize?"), line
            with httpx.Client(follow_redirects=True, trust_env=False) as browser:
                assert "Connexion réussie" in browser.get(url).text
            out, err = login.communicate(timeout=120)
        finally:
            if login.poll() is None:
                login.kill()
                login.communicate()
        assert login.returncode == 0, err
        assert "✓ Connecté à corp" in out
        settings = json.loads((loki_home / "settings.json").read_text())
        oauth = settings["mcp_servers"]["corp"]["oauth"]
        assert oauth["grant"] == "enterprise"
        assert oauth["issuer"] == servers.auth_server
        keyring = json.loads(keyring_file.read_text())
        assert keyring["loki-desktop/mcp/corp/oauth-secret"] == AS_SECRET
        assert "id_token" in keyring["loki-desktop/mcp/corp/oauth"]
        assert files_containing(loki_home, AS_SECRET) == []
        tested = loki(loki_home, "mcp", "test", "corp", env=env)
        assert tested.returncode == 0, tested.stderr
        assert "whoami" in tested.stdout
    finally:
        servers.close()
