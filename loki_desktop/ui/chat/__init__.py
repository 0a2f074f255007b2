"""The conversation on screen: its items, the composer and attachments, streamed answers."""
