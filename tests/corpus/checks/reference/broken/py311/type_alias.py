"""This project declares Python 3.11: a type statement needs 3.12."""

from typing import TypeVar

T = TypeVar("T")
type Pair = tuple[T, T]


def first(items: list[T]) -> T:
    return items[0]
