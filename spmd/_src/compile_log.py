"""What jit says when it traces a function anew: ``jax_log_compiles`` (one line per trace),
``jax_explain_cache_misses`` (why the cached programs did not fit) and ``jax_no_tracing``
(tracing refused).

Messages go to the ``spmd`` logger at WARNING level, as JAX's go to its own loggers, so they
show without any logging setup.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from spmd._src.config import config

logger = logging.getLogger("spmd")


def _where(fun: Callable) -> str:
    code = getattr(fun, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "<unknown>"


def _aval_str(a: Any) -> str:
    weak = "{weak_type=True}" if getattr(a, "weak_type", False) else ""
    return f"{a.str_short()}{weak}"


def _explain(name: str, fun: Callable, treedef, paths: Sequence[str], avals: Sequence[Any],
             seen: Iterable[Any]) -> str:  # fmt: skip
    head = f"TRACING CACHE MISS for jit({name}) defined at {_where(fun)}:"
    seen = list(seen)
    if not seen:
        return f"{head}\n  never seen function"
    same_tree = [e for e in seen if e.in_tree == treedef]
    if not same_tree:
        return f"{head}\n  different input pytree structure than every cached call"

    def diffs(entry) -> list[str]:
        return [
            f"  * at {p}, now {_aval_str(new)} and before {_aval_str(old)}"
            for p, new, old in zip(paths, avals, entry.jaxpr.in_avals)
            if (new.shape, new.dtype, new.weak_type) != (old.shape, old.dtype, old.weak_type)
        ]

    closest = min((diffs(e) for e in same_tree), key=len)
    if not closest:
        return (
            f"{head}\n  the argument types equal a cached call's: the static arguments, a config "
            "option, the axis environment or the context mesh differ"
        )
    return f"{head}\n  different input types than the closest cached call:\n" + "\n".join(closest)


def on_trace(name: str, fun: Callable, treedef, paths: Sequence[str], avals: Sequence[Any],
             seen: Callable[[], Iterable[Any]]) -> None:  # fmt: skip
    """Called by jit before it traces ``fun`` for argument types ``avals`` (``seen()``: the
    cache entries it has)."""
    if config.jax_no_tracing:
        raise RuntimeError(
            f"jit({name}): tracing {name} (defined at {_where(fun)}) for argument types "
            f"({', '.join(_aval_str(a) for a in avals)}) is disallowed: jax_no_tracing is set"
        )
    if config.jax_explain_cache_misses:
        logger.warning(_explain(name, fun, treedef, paths, avals, seen()))
    if config.jax_log_compiles:
        logger.warning(
            "Compiling jit(%s) with global shapes and types (%s).",
            name,
            ", ".join(_aval_str(a) for a in avals),
        )


def any_enabled() -> bool:
    return config.jax_no_tracing or config.jax_explain_cache_misses or config.jax_log_compiles
