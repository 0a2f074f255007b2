"""Workspace watcher: re-checks files as they are saved (watchfiles)."""
