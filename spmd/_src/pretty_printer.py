"""A small document pretty printer (Lindig's "strictly pretty" variant of Wadler's).

Documents are text, concatenation, line breaks, nesting and groups. A group is laid out flat
(its breaks become their text, usually a space) when the whole group fits in the remaining
width, otherwise its breaks become newlines indented by the enclosing nesting. Only the group
itself is measured, not what follows it: that is what gives jaxpr printing its shape.

>>> doc = group(concat([text("f["), nest(2, concat([brk(""), text("a=1")])), brk(""), text("]")]))
>>> format_doc(doc, 80)
'f[a=1]'
"""

from __future__ import annotations

from collections.abc import Sequence


class Doc:
    __slots__ = ()

    def __add__(self, other: Doc) -> Doc:
        return Concat((self, other))

    def format(self, width: int = 80) -> str:
        return format_doc(self, width)


class Text(Doc):
    __slots__ = ("text",)

    def __init__(self, s: str) -> None:
        self.text = s


class Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children: Sequence[Doc]) -> None:
        self.children = tuple(children)


class Break(Doc):
    __slots__ = ("text",)

    def __init__(self, s: str) -> None:
        self.text = s


class HardLine(Doc):
    """A line break in every layout."""

    __slots__ = ()


class Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child: Doc) -> None:
        self.child = child


class Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n: int, child: Doc) -> None:
        self.n, self.child = n, child


_NIL = Concat(())


def nil() -> Doc:
    return _NIL


def text(s: str) -> Doc:
    return Text(s)


def concat(docs: Sequence[Doc]) -> Doc:
    return Concat(docs)


def brk(s: str = " ") -> Doc:
    return Break(s)


def hardline() -> Doc:
    return HardLine()


def group(d: Doc) -> Doc:
    return Group(d)


def nest(n: int, d: Doc) -> Doc:
    return Nest(n, d)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(out)


_FLAT, _BREAK = 0, 1


def _fits(doc: Doc, room: int) -> bool:
    # Measures `doc` laid out flat; stops as soon as it overflows.
    stack = [doc]
    while stack:
        if room < 0:
            return False
        d = stack.pop()
        if isinstance(d, Text):
            room -= len(d.text)
        elif isinstance(d, Concat):
            stack.extend(reversed(d.children))
        elif isinstance(d, Break):
            room -= len(d.text)
        elif isinstance(d, HardLine):
            # A group that holds a forced line break never fits on one line.
            return False
        elif isinstance(d, (Group, Nest)):
            stack.append(d.child)
    return room >= 0


def format_doc(doc: Doc, width: int = 80) -> str:
    out: list[str] = []
    col = 0
    stack: list[tuple[int, int, Doc]] = [(0, _BREAK, doc)]
    while stack:
        indent, mode, d = stack.pop()
        if isinstance(d, Text):
            out.append(d.text)
            col += len(d.text)
        elif isinstance(d, Concat):
            stack.extend((indent, mode, c) for c in reversed(d.children))
        elif isinstance(d, Nest):
            stack.append((indent + d.n, mode, d.child))
        elif isinstance(d, Break):
            if mode == _FLAT:
                out.append(d.text)
                col += len(d.text)
            else:
                out.append("\n" + " " * indent)
                col = indent
        elif isinstance(d, HardLine):
            out.append("\n" + " " * indent)
            col = indent
        elif isinstance(d, Group):
            flat = mode == _FLAT or _fits(d.child, width - col)
            stack.append((indent, _FLAT if flat else _BREAK, d.child))
    return "".join(out)
