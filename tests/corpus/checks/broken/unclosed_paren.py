def greet(name):
    print("hello", name

greet("x")
