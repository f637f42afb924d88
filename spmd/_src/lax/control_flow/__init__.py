"""Control flow: ``cond``/``switch`` (the ``cond`` primitive), ``scan``, ``while_loop``, and
``fori_loop``/``map`` built on them, and the implicitly differentiated solves
``custom_linear_solve`` (its own primitive) and ``custom_root`` (a ``custom_jvp``). The
primitives take their bodies as closed jaxprs.
``associative_scan`` is lax operations only (no primitive)."""

from spmd._src.lax.control_flow.associative_scan import associative_scan
from spmd._src.lax.control_flow.conditionals import cond, cond_p, switch
from spmd._src.lax.control_flow.loops import fori_loop, map
from spmd._src.lax.control_flow.scan import scan, scan_p
from spmd._src.lax.control_flow.solves import (
    custom_linear_solve,
    custom_root,
    linear_solve_p,
)
from spmd._src.lax.control_flow.while_loop import while_loop, while_p

__all__ = [
    "associative_scan",
    "cond",
    "cond_p",
    "custom_linear_solve",
    "custom_root",
    "fori_loop",
    "linear_solve_p",
    "map",
    "scan",
    "scan_p",
    "switch",
    "while_loop",
    "while_p",
]
