"""Helpers shared by the ``spmd.scipy.stats`` modules: ``jnp``, ``lax`` and ``special``
namespaces built from the internal modules (a ``_src`` module may not import the public
``spmd.numpy``; see tests/test_layering.py), and JAX's argument promotion.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from spmd._src.lax import elementwise as _lax_elem
from spmd._src.lax import linalg as _lax_linalg
from spmd._src.lax import shape as _lax_shape
from spmd._src.lax import special as _lax_special
from spmd._src.numpy import (
    array_constructors,
    creation,
    einsum,
    functional,
    indexing,
    lax_numpy,
    linalg,
    numeric_extra,
    reductions,
    shape_ops,
    sorting,
    statistics,
    ufuncs,
)
from spmd._src.numpy.util import check_arraylike, promote_args_inexact, promote_dtypes_inexact
from spmd._src.scipy import special as _special

__all__: list[str] = []


def _namespace(name: str, *modules) -> types.SimpleNamespace:
    ns = types.SimpleNamespace(__name__=name)
    for m in modules:
        for attr in getattr(m, "__all__", ()):
            setattr(ns, attr, getattr(m, attr))
    return ns


# The parts of spmd.numpy the distributions use, under their public names.
jnp = _namespace(
    "jnp",
    array_constructors,
    creation,
    einsum,
    functional,
    indexing,
    lax_numpy,
    numeric_extra,
    reductions,
    shape_ops,
    sorting,
    statistics,
    ufuncs,
)
jnp.linalg = _namespace("jnp.linalg", linalg)
lax = _namespace("lax", _lax_elem, _lax_shape, _lax_special, _lax_linalg)
special = _special

inf = np.inf
nan = np.nan


def promote(name: str, *args: Any) -> list[Any]:
    """The arguments as arrays of one inexact dtype (integers become the default float, Python
    scalars stay weak), broadcast to one shape as JAX's stats functions promote them."""
    return promote_args_inexact(name, *args)


def strong(x):
    """``x`` with its weak type dropped, where JAX's result is strongly typed."""
    return lax.convert_element_type(x, x.dtype, weak_type=False)


def promote_dtypes(name: str, *args: Any) -> list[Any]:
    """Like ``promote`` without broadcasting, for arguments of different ranks."""
    check_arraylike(name, *args)
    return promote_dtypes_inexact(*args)


def standardize(x, loc, scale):
    """``(x - loc) / scale``."""
    return (x - loc) / scale


def where(cond, a, b):
    """``jnp.where``: constants given as Python scalars keep the result's dtype and weak type."""
    return jnp.where(cond, a, b)
