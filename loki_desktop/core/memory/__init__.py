"""Memories: what the person asked Loki to remember, recalled before each turn."""
