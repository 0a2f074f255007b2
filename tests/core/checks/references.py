"""The reference parsers the corpus of tests/corpus/checks/reference is verified against.

TypeScript, TSX, JSX: esbuild and TypeScript's own parser (syntactic diagnostics only), from
tests/reference/node_modules (`make reference`: `npm ci` of tests/reference/package.json).
CSS: esbuild's CSS parser. YAML: ruamel.yaml (a loader other than the PyYAML we check with;
it refuses duplicate keys). Shell: the script's shell with -n, and shellcheck's errors.
Python: ruff's parser at the project's declared version, and a CPython 3.12+ when one is
installed of the declared version (here pyenv's 3.11 and 3.13 judge those files; there is
no 3.14 for the 3.14 one).

`python -m tests.core.checks.references` prints the manifest (expected.toml) from them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from loki_desktop.core.checks.python_check import find_ruff
from loki_desktop.core.checks.python_version import python_target
from loki_desktop.core.checks.shell_check import find_shellcheck, shell_of
from tests.core.checks.corpus import CORPUS

REFERENCE_CORPUS = CORPUS / "reference"
NODE_REFERENCE = Path(__file__).resolve().parents[2] / "reference"
NODE_SUFFIXES = frozenset({".ts", ".mts", ".cts", ".tsx", ".jsx", ".css"})
_SHELL_LINE = re.compile(r"^[^:]+:\s*(?:line\s+)?(\d+):")

# file -> {reference tool: line of its first error}; None when the reference accepts it
Verdicts = dict[str, int | None]


def corpus_files(folder: str) -> list[Path]:
    from loki_desktop.core.checks.registry import Checkers

    root = REFERENCE_CORPUS / folder
    return sorted(p for p in root.rglob("*") if Checkers.kind(p) and p.name != "pyproject.toml")


def node_available() -> bool:
    return shutil.which("node") is not None and (NODE_REFERENCE / "node_modules").is_dir()


def node_verdicts(paths: list[Path]) -> dict[Path, Verdicts]:
    script = NODE_REFERENCE / "reference.mjs"
    done = subprocess.run(
        ["node", str(script), *map(str, paths)], capture_output=True, text=True, check=True
    )
    verdicts: dict[Path, Verdicts] = {}
    for line in done.stdout.splitlines():
        item = json.loads(line)
        verdicts.setdefault(Path(item["file"]), {})[item["tool"]] = (
            None if item["ok"] else int(item["line"])
        )
    return verdicts


def yaml_verdicts(path: Path) -> Verdicts:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError

    try:
        list(YAML(typ="rt").load_all(path.read_text(encoding="utf-8")))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return {"ruamel.yaml": mark.line + 1 if mark else 1}
    return {"ruamel.yaml": None}


def shell_verdicts(path: Path) -> Verdicts:
    text = path.read_text(encoding="utf-8")
    shell = shell_of(text, path.suffix) or "sh"
    verdicts: Verdicts = {}
    grammar = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True)
    match = _SHELL_LINE.match(grammar.stderr.strip())
    verdicts[f"{shell} -n"] = None if grammar.returncode == 0 else int(match[1]) if match else 1
    shellcheck = find_shellcheck()
    if shellcheck is not None:
        done = subprocess.run(
            [shellcheck, "--norc", "-S", "error", "-f", "json1", str(path)],
            capture_output=True,
            text=True,
        )
        comments = json.loads(done.stdout)["comments"]
        verdicts["shellcheck"] = min((c["line"] for c in comments), default=None)
    return verdicts


def python_verdicts(path: Path) -> Verdicts:
    target = python_target(path)
    ruff = find_ruff()
    assert ruff is not None
    argv = [ruff, "check", "--isolated", "--no-cache", "--select", "E9", "--output-format"]
    argv += ["json", "--target-version", target.ruff_name, str(path)]
    done = subprocess.run(argv, capture_output=True, text=True)
    lines = [item["location"]["row"] for item in json.loads(done.stdout)]
    verdicts: Verdicts = {f"ruff {target.ruff_name}": min(lines, default=None)}
    interpreter = cpython(target.version)
    if interpreter is not None:
        code = (
            "import sys, warnings; warnings.simplefilter('ignore'); "
            "compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec', dont_inherit=True)"
        )
        done = subprocess.run([interpreter, "-c", code, str(path)], capture_output=True, text=True)
        lines = re.findall(r"line (\d+)", done.stderr)  # the last one is in the file
        verdicts[f"cpython {target.shown}"] = (
            None if done.returncode == 0 else int(lines[-1]) if lines else 1
        )
    return verdicts


def cpython(version: tuple[int, int]) -> str | None:
    """The CPython of exactly the declared version, if one is installed (on PATH, or one of
    pyenv's versions): one that runs, not a pyenv shim that refuses to."""
    name = f"python3.{version[1]}"
    candidates = [shutil.which(name)]
    candidates += sorted(map(str, Path.home().glob(f".pyenv/versions/3.{version[1]}.*/bin/{name}")))
    return next((c for c in filter(None, candidates) if _runs(c)), None)


def _runs(program: str) -> bool:
    try:
        return subprocess.run([program, "-c", "pass"], capture_output=True).returncode == 0
    except OSError:
        return False


def verdicts(paths: list[Path]) -> dict[Path, Verdicts]:
    """Every reference's verdict on every file it judges (node ones only when installed)."""
    result: dict[Path, Verdicts] = {}
    node_files = [p for p in paths if p.suffix in NODE_SUFFIXES]
    if node_files and node_available():
        result.update(node_verdicts(node_files))
    for path in paths:
        if path.suffix in (".yaml", ".yml"):
            result[path] = yaml_verdicts(path)
        elif path.suffix == ".sh":
            result[path] = shell_verdicts(path)
        elif path.suffix == ".py":
            result[path] = python_verdicts(path)
    return result


def _manifest() -> str:
    lines = [
        "# Where the reference parsers report the first error of each broken file (its line).",
        "# Printed by `python -m tests.core.checks.references`; tests/core/checks/",
        "# test_reference_corpus.py checks the checkers against it, and it against them.",
        "[broken]",
    ]
    for path, found in verdicts(corpus_files("broken")).items():
        name = path.relative_to(REFERENCE_CORPUS / "broken").as_posix()
        pairs = ", ".join(f'"{tool}" = {line}' for tool, line in found.items() if line)
        lines.append(f'"{name}" = {{ {pairs} }}')
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if not node_available():
        sys.exit("run `make reference` first: esbuild and typescript are missing")
    sys.stdout.write(_manifest())
