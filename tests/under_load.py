"""Runs pytest with the CPU saturated by busy processes: `python -m tests.under_load`.

    python -m tests.under_load [--burners N] [--runs N] [pytest arguments...]

Starts N processes that spin (default 2, as many as the test machines have cores), runs
pytest `--runs` times with the given arguments, kills the spinners and prints how many runs
passed. `make test-stress` runs the whole suite this way; a test that waits on a fixed sleep
or a short timeout instead of a condition fails here first.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence

SPIN = "while True: pass"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.under_load", description=__doc__)
    parser.add_argument("--burners", type=int, default=2, help="busy processes (default 2)")
    parser.add_argument("--runs", type=int, default=1, help="pytest runs in a row (default 1)")
    args, pytest_args = parser.parse_known_args(argv)
    burners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.burners)]
    codes: list[int] = []
    try:
        for run in range(1, args.runs + 1):
            code = subprocess.call([sys.executable, "-m", "pytest", *pytest_args])
            codes.append(code)
            print(f"under load: run {run}/{args.runs} {'passed' if code == 0 else 'FAILED'}")
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
    passed = codes.count(0)
    print(f"under load: {passed} of {len(codes)} runs passed, {args.burners} busy processes")
    return 0 if passed == len(codes) else 1


if __name__ == "__main__":
    sys.exit(main())
