"""Control flow: ``cond``/``switch`` (the ``cond`` primitive), ``scan``, ``while_loop``, and
``fori_loop``/``map`` built on them. The primitives take their bodies as closed jaxprs.
``associative_scan`` is lax operations only (no primitive)."""

from spmd._src.lax.control_flow.associative_scan import associative_scan
from spmd._src.lax.control_flow.conditionals import cond, cond_p, switch
from spmd._src.lax.control_flow.loops import fori_loop, map
from spmd._src.lax.control_flow.scan import scan, scan_p
from spmd._src.lax.control_flow.while_loop import while_loop, while_p

__all__ = [
    "associative_scan",
    "cond",
    "cond_p",
    "fori_loop",
    "map",
    "scan",
    "scan_p",
    "switch",
    "while_loop",
    "while_p",
]
