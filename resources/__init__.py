"""Icons, style sheet, desktop entry and metainfo; installed as the package loki_desktop.resources."""
