"""Checkpoints of the files each turn changes, and taking a turn's changes back (undo/redo)."""
