# -*- coding: latin-1 -*-
"""A latin-1 file with a coding cookie."""
GREETING = "café crème"
print(GREETING)
