name = "café"
