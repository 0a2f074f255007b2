"""Valid Python 3.14 syntax: template strings (PEP 750), except without brackets (PEP 758)."""

name = "world"
greeting = t"Hello {name}!"

try:
    int("x")
except ValueError, TypeError:
    pass
