"""An MCP server that dies before speaking: a message on stderr, exit status 1."""

import sys

print("starting the server", file=sys.stderr)
print("fatal: API_KEY is not set", file=sys.stderr)
sys.exit(1)
