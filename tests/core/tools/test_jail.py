"""Every way out of the workspace is refused; every way inside is allowed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loki_desktop.core.tools.jail import JailError, Workspace


@pytest.fixture
def jail(workspace: Path) -> Workspace:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print(1)\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    return Workspace(workspace)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret")
    return folder


@pytest.mark.parametrize(
    "raw",
    ["src/main.py", "./src/main.py", "src/../src/main.py", "new/folder/file.txt", "."],
)
def test_paths_inside_are_allowed(jail: Workspace, raw: str) -> None:
    resolved = jail.resolve(raw)
    assert resolved.is_relative_to(jail.root)


def test_absolute_path_inside_is_allowed(jail: Workspace) -> None:
    assert jail.resolve(str(jail.root / "src" / "main.py")) == jail.root / "src" / "main.py"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("../outside/secret.txt", "outside the workspace"),
        ("src/../../outside/secret.txt", "outside the workspace"),
        ("/etc/passwd", "outside the workspace"),
        ("src/\x00main.py", "NUL byte"),
        (".git/config", "inside .git"),
        ("src/../.git/config", "inside .git"),
        ("sub/.git/HEAD", "inside .git"),
        # case variants: the real .git on a case-insensitive disk (macOS, Windows)
        (".GIT/hooks/pre-commit", "inside .git"),
        ("src/../.Git/config", "inside .git"),
        ("", "empty"),
    ],
)
def test_escapes_are_refused(jail: Workspace, raw: str, reason: str) -> None:
    with pytest.raises(JailError, match=reason):
        jail.resolve(raw)


def test_symlinked_file_leading_outside_is_refused(jail: Workspace, outside: Path) -> None:
    os.symlink(outside / "secret.txt", jail.root / "link.txt")
    with pytest.raises(JailError, match="outside"):
        jail.resolve("link.txt")


def test_symlinked_folder_leading_outside_is_refused(jail: Workspace, outside: Path) -> None:
    os.symlink(outside, jail.root / "linkdir")
    with pytest.raises(JailError, match="outside"):
        jail.resolve("linkdir/secret.txt")
    with pytest.raises(JailError, match="outside"):
        jail.resolve("linkdir/new-file.txt")


def test_dangling_symlink_leading_outside_is_refused(jail: Workspace, outside: Path) -> None:
    os.symlink(outside / "does-not-exist-yet.txt", jail.root / "dangling.txt")
    with pytest.raises(JailError, match="outside"):
        jail.resolve("dangling.txt")


def test_symlink_staying_inside_is_allowed(jail: Workspace) -> None:
    os.symlink(jail.root / "src" / "main.py", jail.root / "alias.py")
    assert jail.resolve("alias.py") == jail.root / "src" / "main.py"


def test_symlink_loop_is_refused_not_crashing(jail: Workspace) -> None:
    os.symlink(jail.root / "loop-b", jail.root / "loop-a")
    os.symlink(jail.root / "loop-a", jail.root / "loop-b")
    try:
        resolved = jail.resolve("loop-a/file")
    except JailError:
        return
    # Some Python versions resolve a loop to the link itself: it must still be inside.
    assert resolved.is_relative_to(jail.root)


def test_root_given_through_a_symlink_is_resolved(tmp_path: Path, workspace: Path) -> None:
    os.symlink(workspace, tmp_path / "ws-link")
    jail = Workspace(tmp_path / "ws-link")
    assert jail.root == workspace.resolve()
    assert jail.resolve("a.txt") == workspace.resolve() / "a.txt"
