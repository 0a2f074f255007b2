"""Static checks of the files the agent writes: one checker per kind, never executing code."""
