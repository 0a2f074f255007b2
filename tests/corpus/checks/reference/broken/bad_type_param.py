"""A generic class whose bound is missing after the colon."""


class Box[T:]:
    def __init__(self, value: T) -> None:
        self.value = value
