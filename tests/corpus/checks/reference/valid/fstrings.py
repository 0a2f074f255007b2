"""Valid Python 3.12 f-strings (PEP 701): reused quotes, backslashes, comments, nesting."""

names = ["Ada", "Grace"]
songs = {"title": "Hello"}

print(f"{", ".join(names)}")
print(f"{"\n".join(names)}")
print(f"{songs["title"]!r:>{len(names) * 10}}")
print(f"{f"{f"{1 + 1}"}"}")
total = f"{
    sum(  # a comment inside the replacement field
        len(name) for name in names
    )
}"
print(total, f"{'\\'}", f"{names[0]=}")
