names = ["Ada", "Grace"]
print("names:")
print(f"{", ".join(names)}")
