"""Réglages: the settings dialog and its pages (model, servers, MCP, sampling, language)."""
