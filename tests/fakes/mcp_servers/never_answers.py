"""An MCP server that starts and never answers (never reads its stdin)."""

import sys
import time

print("never_answers: up, and silent", file=sys.stderr, flush=True)
while True:
    time.sleep(3600)
