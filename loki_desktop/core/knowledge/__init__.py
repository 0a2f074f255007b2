"""Workspace knowledge: the workspace's text, code, Markdown and PDF files, indexed and searched."""
