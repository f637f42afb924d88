"""What the golden families in the format of ``tests/cases_dot_algorithms.py`` share (it and
``cases_accuracy``, ``cases_scaled_dot``, ``cases_tokens``): the function that adds a case to a
family's lists, and the top module of the lax module a case runs with. Plain Python and NumPy:
the generators import it under JAX, the tests under spmd.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from cases_lax_more import Case


def case_adder(cases: list[Case], jaxpr_cases: list[str]) -> Callable[..., None]:
    """``case(name, make, *args, jaxpr=False, **kw)``: appends ``Case(name, make, args, **kw)``
    to ``cases`` (names are unique: each keys a golden record) and, with ``jaxpr=True``, the
    name to ``jaxpr_cases`` (the cases whose jaxpr is recorded too)."""

    def case(name: str, make, *args, jaxpr: bool = False, **kw) -> None:
        if any(c.name == name for c in cases):
            raise ValueError(f"duplicate case name {name!r}")
        cases.append(Case(name, make, tuple(args), **kw))
        if jaxpr:
            jaxpr_cases.append(name)

    return case


def top_module(lax):
    """The top module (jax or spmd) of the lax module a case runs with."""
    return importlib.import_module(lax.__name__.split(".")[0])
