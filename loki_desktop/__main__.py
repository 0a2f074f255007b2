"""`python -m loki_desktop` and the `loki-desktop` command."""

import sys


def main() -> int:
    from loki_desktop.app import main as app_main

    return app_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
