"""The MCP servers' side of the window: their requests, prompts and resources in the composer."""
