"""Where user code made a traced equation, as JAX's ``source_info_util.summarize`` prints it:
``file.py:line:column (qualified function name)``, from the innermost frame outside spmd and
the standard library.

Recording costs a walk of the Python stack per equation, so it is on only inside
``recording()`` (``print_saved_residuals`` names the equation each residual comes from);
elsewhere ``current()`` is None at once.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import sysconfig
from collections.abc import Iterator

# spmd's package folder (this file is spmd/_src/source_info.py) and the standard library's.
_SPMD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP = (_SPMD + os.sep, sysconfig.get_paths()["stdlib"] + os.sep, "<frozen")
_depth = 0
_UNSET = object()
# The location of the equation eval_jaxpr is binding again (None: it had none, as the
# equations spmd's rules make), which the equations that binding makes take.
_at: object = _UNSET


def depth() -> int:
    """How many ``recording()`` blocks are open (0: locations are not recorded)."""
    return _depth


@contextlib.contextmanager
def at(location: str | None) -> Iterator[None]:
    """Equations made inside the block are located at ``location``."""
    global _at
    old, _at = _at, location
    try:
        yield
    finally:
        _at = old


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Equations traced inside the block keep their source location."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1


def current() -> str | None:
    """The location of the innermost user frame calling into spmd, or None (not recording, or
    no user frame: a rule of spmd's own made the equation)."""
    if not _depth:
        return None
    if _at is not _UNSET:
        return _at  # type: ignore[return-value]
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_SKIP):
            # The call being made: its expression's first line and column (0-based), as JAX's.
            pos = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None), None)
            line = pos[0] if pos and pos[0] else frame.f_lineno
            col = pos[2] if pos and pos[2] is not None else 0
            return f"{code.co_filename}:{line}:{col} ({code.co_qualname})"
        frame = frame.f_back
    return None
