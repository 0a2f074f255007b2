"""Modern syntax used well, then a real mistake: a missing bracket."""


def first[T](items: list[T]) -> T:
    return items[0]


type Pair[T] = tuple[T, T]


def last[T](items: list[T] -> T:
    return items[-1]
