"""The import-linter contracts leave no module out: each one sits in a layer."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "loki_desktop"


def layered(contract_name: str) -> set[str]:
    """The modules a layers contract names (siblings split on `|` and `:`)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == contract_name
    ]
    return {name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", layer)}


def children(folder: Path, prefix: str) -> set[str]:
    """The modules and packages directly inside `folder`, as dotted names."""
    names = {f"{prefix}.{path.stem}" for path in folder.glob("*.py") if path.stem != "__init__"}
    names |= {f"{prefix}.{path.parent.name}" for path in folder.glob("*/__init__.py")}
    return names - {f"{prefix}.__main__"}


@pytest.mark.parametrize(
    ("contract", "folder", "prefix"),
    [
        (
            "Layers: app above ui/persistence/cli/desktop_integration above core",
            PACKAGE,
            "loki_desktop",
        ),
        (
            "Inside the core: agent above features above values",
            PACKAGE / "core",
            "loki_desktop.core",
        ),
    ],
)
def test_every_module_sits_in_a_layer(contract: str, folder: Path, prefix: str) -> None:
    missing = children(folder, prefix) - layered(contract)
    assert not missing, f"modules in no layer of {contract!r} (pyproject.toml): {missing}"
