"""Entry script of the bundle: the same main() as the `loki-desktop` console script."""

import sys

from loki_desktop.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
