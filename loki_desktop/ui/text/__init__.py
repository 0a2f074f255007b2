"""Text drawn for the chat and the diffs: Markdown to HTML, syntax colours, the themed renderer."""
