"""The built-in skill files (markdown); installed as the package loki_desktop.skills."""
