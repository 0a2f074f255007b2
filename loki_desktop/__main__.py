"""`python -m loki_desktop` and the `loki-desktop` command."""

import sys


def main() -> int:
    if sys.argv[1:2] == ["--loki-supervisor"]:
        # the process keeper, inside a bundle (core/procs/spawn.py): nothing else loaded
        from loki_desktop.core.procs import supervisor

        return supervisor.main(sys.argv[2:])
    from loki_desktop.app import main as app_main

    return app_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
