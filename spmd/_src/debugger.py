"""``debug.breakpoint``: stop a running program and look at its values (``jdb``, as JAX's).

When traced, the breakpoint records the Python frames that called it (spmd's own frames left
out) and their local variables. Traced values among them become operands of a debug callback,
so when the program runs the debugger sees them computed; other values are kept as they are.
The debugger is a small pdb: ``p``/``pp`` evaluate an expression in the selected frame,
``u``/``d`` move between frames, ``l`` lists the source around the frame's line, ``w``/``bt``
print the stack, ``c`` continues, and ``q`` (or the end of input) ends the program with
``SystemExit(0)``; a bare expression prints its value. It reads the
commands from ``sys.stdin`` and writes to ``sys.stdout``.

>>> def f(x):
...     y = jnp.sin(x)
...     spmd.debug.breakpoint()  # doctest: +SKIP
...     return y
"""

from __future__ import annotations

import cmd
import linecache
import os
import pprint
import sys
from typing import Any

from spmd._src import core
from spmd._src.lax import callback as _cb

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the spmd package


class _Frame:
    """One Python frame as the debugger shows it: where, its globals, and its locals (traced
    ones as the indices of callback operands)."""

    __slots__ = ("filename", "lineno", "name", "globals", "locals", "traced")

    def __init__(self, filename, lineno, name, globals_, locals_, traced) -> None:
        self.filename, self.lineno, self.name = filename, lineno, name
        self.globals, self.locals, self.traced = globals_, locals_, traced


def _user_frames(skip: int, filter_frames: bool, num_frames: int | None) -> list:
    """The calling frames, innermost last (spmd's own left out when ``filter_frames``)."""
    out = []
    f = sys._getframe(skip)
    while f is not None:
        name = os.path.abspath(f.f_code.co_filename)
        if not (filter_frames and (name.startswith(_HERE) or name.startswith("<frozen"))):
            out.append(f)
        f = f.f_back
    if num_frames is not None:
        out = out[:num_frames]
    return out[::-1]


def breakpoint(  # noqa: A001 - JAX's name
    *,
    backend: str | None = None,
    filter_frames: bool = True,
    num_frames: int | None = None,
    ordered: bool = False,
    token: Any = None,
    **kwargs: Any,
) -> Any:
    """Enter the ``jdb`` debugger here when the program runs, with the values of the calling
    frames' local variables (see the module docstring). Returns ``token`` unchanged."""
    if backend not in (None, "cli"):
        raise ValueError(f"debug.breakpoint: unknown debugger backend {backend!r}; 'cli' is spmd's")
    if kwargs:
        raise TypeError(f"debug.breakpoint: unexpected keyword arguments {sorted(kwargs)}")
    trace = core.trace_ctx.trace
    operands: list = []
    frames = []
    for f in _user_frames(2, filter_frames, num_frames):
        locals_, traced = {}, {}
        for k, v in f.f_locals.items():
            if isinstance(v, core.Tracer):
                if v._trace is trace:
                    traced[k] = len(operands)
                    operands.append(v)
                else:  # a value of an enclosing transformation, not known here
                    locals_[k] = v
            else:
                locals_[k] = v
        frames.append(
            _Frame(f.f_code.co_filename, f.f_lineno, f.f_code.co_name, f.f_globals, locals_, traced)
        )

    def run(*vals):
        from spmd._src.debugging import _as_array  # lazy: debugging imports us

        shown = []
        for fr in frames:
            loc = dict(fr.locals)
            loc.update({k: _as_array(vals[i]) for k, i in fr.traced.items()})
            shown.append((fr, loc))
        _Debugger(shown).run()

    _cb.debug_callback(run, *operands, name="breakpoint")
    return token


class _Quit(Exception):
    pass


class _Debugger(cmd.Cmd):
    prompt = "(jdb) "

    def __init__(self, frames: list) -> None:
        super().__init__(stdin=sys.stdin, stdout=sys.stdout)
        self.use_rawinput = False
        self.frames, self.at = frames, len(frames) - 1

    def run(self) -> None:
        self.stdout.write("Entering jdb:\n")
        try:
            self.cmdloop()
        except _Quit:
            raise SystemExit(0) from None

    def _eval(self, expr: str) -> Any:
        fr, loc = self.frames[self.at]
        return eval(expr, fr.globals, loc)  # noqa: S307 - the user's debugger command

    def _show(self, arg: str, fmt) -> None:
        try:
            self.stdout.write(fmt(self._eval(arg)) + "\n")
        except Exception as e:  # noqa: BLE001 - shown to the user, as pdb does
            self.stdout.write(f"*** {type(e).__name__}: {e}\n")

    def do_p(self, arg: str) -> None:
        """p expression: print the value of the expression."""
        self._show(arg, repr)

    def do_pp(self, arg: str) -> None:
        """pp expression: pretty-print the value of the expression."""
        self._show(arg, pprint.pformat)

    def do_up(self, arg: str) -> None:
        """u(p): move to the calling frame."""
        self.at = max(self.at - 1, 0)
        self.do_list("")

    def do_down(self, arg: str) -> None:
        """d(own): move to the called frame."""
        self.at = min(self.at + 1, len(self.frames) - 1)
        self.do_list("")

    def do_list(self, arg: str) -> None:
        """l(ist): the source around the frame's line."""
        fr, _ = self.frames[self.at]
        lines = [f"> {fr.filename}({fr.lineno})"]
        total = len(linecache.getlines(fr.filename))
        for n in range(max(fr.lineno - 3, 1), min(fr.lineno + 1, total) + 1):
            text = linecache.getline(fr.filename, n).rstrip("\n")
            lines.append(("->  " if n == fr.lineno else "    ") + text)
        self.stdout.write("\n".join(lines) + "\n    \n")

    def do_where(self, arg: str) -> None:
        """w(here): the stack, innermost last."""
        out = ["Traceback:"]
        for fr, _ in self.frames:
            out.append(f'  File "{fr.filename}", line {fr.lineno}')
            out.append("    " + linecache.getline(fr.filename, fr.lineno).strip())
        self.stdout.write("\n".join(out) + "\n")

    def do_continue(self, arg: str) -> bool:
        """c(ont(inue)): leave the debugger; the program goes on."""
        return True

    def do_quit(self, arg: str) -> None:
        """q(uit): end the program (SystemExit(0), as JAX's debugger)."""
        raise _Quit

    def do_EOF(self, arg: str) -> None:
        """End of input: quit, as JAX's debugger does."""
        raise _Quit

    do_u, do_d, do_l, do_w, do_bt = do_up, do_down, do_list, do_where, do_where
    do_c = do_cont = do_continue
    do_q = do_exit = do_quit

    def default(self, line: str) -> None:
        self.do_p(line)  # a bare expression prints its value

    def emptyline(self) -> None:
        pass


__all__ = ["breakpoint"]
