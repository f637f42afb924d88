"""Small helpers shared by every layer."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def safe_zip(*args: Sequence[Any]) -> list[tuple[Any, ...]]:
    n = len(args[0])
    for a in args[1:]:
        assert len(a) == n, f"length mismatch: {[len(a) for a in args]}"
    return list(zip(*args))


def safe_map(f: Callable[..., T], *args: Sequence[Any]) -> list[T]:
    n = len(args[0])
    for a in args[1:]:
        assert len(a) == n, f"length mismatch: {[len(a) for a in args]}"
    return list(map(f, *args))


def unzip2(pairs: Iterable[tuple[Any, Any]]) -> tuple[list[Any], list[Any]]:
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
    return xs, ys


def split_list(xs: Sequence[T], ns: Sequence[int]) -> list[list[T]]:
    xs = list(xs)
    out = []
    for n in ns:
        out.append(xs[:n])
        xs = xs[n:]
    out.append(xs)
    return out


def canonicalize_axis(axis: int, ndim: int, *, name: str = "axis", fn: str = "") -> int:
    """Return ``axis`` as a non-negative int, raising numpy-style for out-of-range axes."""
    import operator

    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        where = f"{fn}: " if fn else ""
        raise ValueError(
            f"{where}{name} {axis} is out of bounds for array of dimension {ndim} "
            f"(valid range [{-ndim}, {ndim - 1}])"
        )
    return axis % ndim if ndim else 0


def prod(xs: Iterable[int]) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


class LRU:
    """A bounded mapping that forgets the least recently used entry."""

    __slots__ = ("maxsize", "_d")

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._d: OrderedDict = OrderedDict()

    def get(self, key, default=None):
        d = self._d
        try:
            val = d[key]
        except KeyError:
            return default
        d.move_to_end(key)
        return val

    def __setitem__(self, key, value) -> None:
        d = self._d
        d[key] = value
        d.move_to_end(key)
        while len(d) > self.maxsize:
            d.popitem(last=False)

    def __len__(self) -> int:
        return len(self._d)

    def values(self) -> list:
        return list(self._d.values())

    def clear(self) -> None:
        self._d.clear()


class HashableFunction:
    """Wraps a function so that equal closures hash equal (used in cache keys)."""

    __slots__ = ("f", "closure")

    def __init__(self, f: Callable, closure: Any) -> None:
        self.f, self.closure = f, closure

    def __eq__(self, other):
        return (
            isinstance(other, HashableFunction)
            and self.f.__code__ == other.f.__code__
            and self.closure == other.closure
        )

    def __hash__(self):
        return hash((self.f.__code__, self.closure))

    def __call__(self, *args, **kw):
        return self.f(*args, **kw)
