"""Not an MCP server at all: it prints text on stdout and stays alive."""

import sys
import time

print("Hello! Server listening on port 3000", flush=True)
print("junk_stdout: wrote a banner", file=sys.stderr, flush=True)
while True:
    time.sleep(3600)
