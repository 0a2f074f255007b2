"""What the agent changes in files: diffs, review before writing, undo."""
