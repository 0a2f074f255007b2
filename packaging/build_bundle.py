"""`make bundle`: build the one-folder app with PyInstaller, report its size, smoke-test it.

    .venv/bin/python packaging/build_bundle.py            build, report, smoke-test
    .venv/bin/python packaging/build_bundle.py --no-build smoke-test the existing dist/ folder

The smoke tests run a copy of the bundle from a temporary folder with a bare environment
(no venv on PATH, no PYTHONPATH, a fresh $HOME and $LOKI_HOME). On Linux as root they also
hide the repository, the venv and the Python installation behind empty mounts in a private
mount namespace, so the bundle cannot lean on anything but itself and the system libraries.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "packaging" / "loki-desktop.spec"
DIST = REPO / "dist"
WORK = REPO / "build" / "pyinstaller"
NAME = "loki-desktop"
EXE_NAME = NAME + (".exe" if sys.platform == "win32" else "")
# On Windows the app has no console; its twin loki-desktop-cli.exe has one, for commands.
SMOKE_EXE = f"{NAME}-cli.exe" if sys.platform == "win32" else EXE_NAME
WINDOW_SECONDS = 4.0
# Lines a healthy start never prints (Qt's own warnings start with "qt." or "Qt").
ALARMING = re.compile(r"Traceback|Error|error|Failed|failed|Could not|Cannot|^qt\.|^Qt", re.M)


def version() -> str:
    sys.path.insert(0, str(REPO))
    from loki_desktop import __version__

    return __version__


# --- build and report ---------------------------------------------------------------------


def build() -> float:
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--distpath",
            str(DIST),
            "--workpath",
            str(WORK),
            str(SPEC),
        ],
        check=True,
        cwd=REPO,
    )
    return time.monotonic() - started


def tree_size(folder: Path) -> int:
    """Bytes of the files under `folder` (symlinks counted as links, not followed)."""
    return sum(path.lstat().st_size for path in folder.rglob("*") if not path.is_dir())


def biggest_parts(bundle: Path, count: int = 8) -> list[tuple[int, str]]:
    internal = bundle / "_internal"
    root = internal if internal.is_dir() else bundle
    parts = []
    for child in root.iterdir():
        size = (
            tree_size(child) if child.is_dir() and not child.is_symlink() else child.lstat().st_size
        )
        parts.append((size, child.name))
    return sorted(parts, reverse=True)[:count]


def glibc_floor(bundle: Path) -> str | None:
    """The newest GLIBC_x.y symbol version any binary of the bundle needs (Linux, objdump)."""
    objdump = shutil.which("objdump")
    if not sys.platform.startswith("linux") or objdump is None:
        return None
    versions: set[tuple[int, ...]] = set()
    for path in bundle.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as handle:
            if handle.read(4) != b"\x7fELF":
                continue
        out = subprocess.run([objdump, "-T", str(path)], capture_output=True, text=True).stdout
        versions |= {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_([0-9.]+)", out)}
    return ".".join(map(str, max(versions))) if versions else None


def report(bundle: Path, seconds: float | None) -> None:
    mib = tree_size(bundle) / 2**20
    if seconds is not None:
        print(f"\nBuilt {bundle.relative_to(REPO)} in {seconds:.0f} s")
    print(f"Bundle size: {mib:.0f} MiB ({bundle})")
    for size, name in biggest_parts(bundle):
        print(f"  {size / 2**20:6.1f} MiB  {name}")
    floor = glibc_floor(bundle)
    if floor:
        print(
            f"Needs glibc >= {floor}: the build host's own floor "
            "(build on the oldest distribution you support)"
        )


# --- smoke tests --------------------------------------------------------------------------


class Smoke:
    """Runs the copied bundle's executable in a bare environment; records what passed."""

    def __init__(self, bundle: Path, scratch: Path) -> None:
        self.app = scratch / "app"
        shutil.copytree(bundle, self.app, symlinks=True)
        self.exe = self.app / SMOKE_EXE
        self.cwd = scratch / "work"
        self.cwd.mkdir()
        runtime = scratch / "runtime"
        runtime.mkdir(mode=0o700)
        self.env = {
            "HOME": str(scratch / "home"),
            "PATH": os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir())
            if os.name != "nt"
            else os.environ.get("SYSTEMROOT", r"C:\Windows") + r"\System32",
            "LANG": "C.UTF-8",
            "LOKI_HOME": str(scratch / "loki-home"),
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_DATA_HOME": str(scratch / "data"),
        }
        if os.name == "nt":
            self.env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", r"C:\Windows")
        self.prefix = hide_build_environment()
        self.failures: list[str] = []

    def command(self, *args: str) -> list[str]:
        return [*self.prefix, str(self.exe), *args]

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env={**self.env, **env},
            timeout=120,
            check=False,
        )

    def check(self, label: str, passed: bool, shown: str) -> None:
        mark = "ok  " if passed else "FAIL"
        print(f"[{mark}] {label}: {shown.strip()}")
        if not passed:
            self.failures.append(label)

    def window(self) -> None:
        """Start the window offscreen, let it live a few seconds, expect no error output."""
        env = {**self.env, "QT_QPA_PLATFORM": "offscreen"}
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            process = subprocess.Popen(
                self.command(), cwd=self.cwd, env=env, stdout=out, stderr=err, text=True
            )
            time.sleep(WINDOW_SECONDS)
            alive = process.poll() is None
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            out.seek(0)
            err.seek(0)
            output = out.read() + err.read()
        alarming = ALARMING.findall(output)
        shown = f"running after {WINDOW_SECONDS:.0f} s: {alive}; output: {output.strip()!r}"
        self.check("window offscreen", alive and not alarming, shown)


def hide_build_environment() -> list[str]:
    """A command prefix hiding the repository and the Python installations (Linux, root)."""
    unshare = shutil.which("unshare")
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or unshare is None:
        print("(the build environment stays visible: private mounts need Linux and root)")
        return []
    folders = sorted({Path(p).resolve() for p in (REPO, sys.prefix, sys.base_prefix)})
    # A folder inside another hidden one is hidden with it (and no longer exists to mount on).
    hidden = [str(f) for f in folders if not any(f != o and f.is_relative_to(o) for o in folders)]
    script = (
        'for d in "$@"; do [ "$d" = -- ] && break; mount -t tmpfs tmpfs "$d" || exit 97; done; '
    )
    script += 'while [ "$1" != -- ]; do shift; done; shift; exec "$@"'
    prefix = [unshare, "--mount", "--propagation", "private", "sh", "-c", script, "sh"]
    prefix += [*hidden, "--"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        print("(the build environment stays visible: unshare --mount is not allowed here)")
        return []
    print("Hidden from the bundle: " + ", ".join(hidden))
    return prefix


def smoke(bundle: Path, expected_version: str) -> list[str]:
    print("\nSmoke tests (a copy of the bundle, bare environment):")
    with tempfile.TemporaryDirectory(prefix="loki-bundle-") as scratch:
        test = Smoke(bundle, Path(scratch))
        steps: list[tuple[str, Sequence[str], Callable[[subprocess.CompletedProcess[str]], bool]]]
        steps = [
            (
                "--version",
                ["--version"],
                lambda r: r.returncode == 0 and r.stdout.strip() == f"{NAME} {expected_version}",
            ),
            (
                "skill picked",
                ["skills", "mon script plante avec une TypeError"],
                lambda r: r.returncode == 0 and r.stdout.split()[:1] == ["debogage-systematique"],
            ),
        ]
        (test.cwd / "broken.py").write_text("def f():\n    return undefined_name\n")
        steps.append(
            ("Python check (bundled ruff)", ["check", "broken.py"], lambda r: "F821" in r.stdout)
        )
        # the parsers imported on first use, and the bundled shellcheck
        broken = {
            "broken.ts": "enum E { A = 1 B = 2 }\n",
            "broken.tsx": "export const A = () => <div></span>;\n",
            "broken.css": ".a {\n  color red;\n}\n",
            "broken.yaml": "a: 1\na: 2\n",
            "broken.sh": "#!/bin/bash\nif [$x -gt 1]; then echo; fi\n",
        }
        for name, text in broken.items():
            (test.cwd / name).write_text(text)
        steps.append(
            (
                "TypeScript, TSX, CSS, YAML and shell checks",
                ["check", *broken],
                lambda r: all(f"{name}:" in r.stdout for name in broken) and "SC1035" in r.stdout,
            )
        )
        for label, args, passed in steps:
            result = test.run(*args)
            test.check(label, passed(result), result.stdout + result.stderr)
        enabled = test.run("mcp", "enable", "fetch")
        fetch = test.run("mcp", "test", "fetch")
        test.check(
            "fetch MCP server (hidden sub-command)",
            enabled.returncode == 0 and fetch.returncode == 0 and "fetch" in fetch.stdout,
            fetch.stdout + fetch.stderr,
        )
        if os.name != "nt" and sys.platform != "darwin":
            headless = test.run()
            test.check(
                "no display: says so",
                headless.returncode == 1 and "écran graphique" in headless.stderr,
                headless.stderr,
            )
        test.window()
        return test.failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="test the existing dist/ bundle")
    parser.add_argument("--no-smoke", action="store_true", help="build and report only")
    args = parser.parse_args(argv)
    bundle = DIST / NAME
    seconds = None if args.no_build else build()
    if not (bundle / EXE_NAME).is_file():
        print(f"No bundle at {bundle}", file=sys.stderr)
        return 1
    report(bundle, seconds)
    if args.no_smoke:
        return 0
    failures = smoke(bundle, version())
    if failures:
        print(f"\nSmoke tests failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    print(f"\nBundle ready: {bundle / EXE_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
