"""Files attached to a message beyond images: text and code (any encoding), PDF text."""
