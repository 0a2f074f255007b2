"""Valid Python 3.12 and 3.13 syntax: PEP 695 generics and aliases, PEP 696 defaults."""

from collections.abc import Callable, Iterable

type Pair[T] = tuple[T, T]
type Tree[T] = T | list[Tree[T]]
type Handler[**P, R = None] = Callable[P, R]  # PEP 696: a default for a type parameter


def first[T](items: Iterable[T]) -> T:
    for item in items:
        return item
    raise LookupError("empty")


def swap[A, B](pair: tuple[A, B]) -> tuple[B, A]:
    return pair[1], pair[0]


class Stack[T: (int, str), *Ts]:
    def __init__(self) -> None:
        self.items: list[T] = []

    def push(self, item: T) -> None:
        self.items.append(item)


class Node[T = int]:
    value: T


def flatten[T](tree: Tree[T]) -> list[T]:
    return [leaf for branch in tree for leaf in flatten(branch)] if isinstance(tree, list) else [tree]
