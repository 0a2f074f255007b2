"""The official MCP conformance suite run against Loki's client (`make conformance`)."""
