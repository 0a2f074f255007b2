"""An MCP server that dies before speaking: a message on stderr, exit status 1.

With API_KEY set, it prints the key it refuses (a server careless with secrets).
"""

import os
import sys

print("starting the server", file=sys.stderr)
if os.environ.get("API_KEY"):
    print(f"fatal: API_KEY {os.environ['API_KEY']} was refused", file=sys.stderr)
else:
    print("fatal: API_KEY is not set", file=sys.stderr)
sys.exit(1)
