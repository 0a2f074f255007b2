"""Loki Desktop: a desktop agent for local models served by Ollama."""

__version__ = "0.1.0"
