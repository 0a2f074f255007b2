"""MCP client: the server catalogue, typed configs and one owner task per server."""
