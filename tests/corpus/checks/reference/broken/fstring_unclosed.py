names = ["Ada", "Grace"]

message = f"{", ".join(names)"
print(message)
