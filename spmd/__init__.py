"""spmd: JAX's SPMD programming model in Python on NumPy (``import spmd as jax``).

This module re-exports the public API; the implementation lives in ``spmd._src``.
"""

from spmd._src import dispatch as _dispatch  # noqa: F401  (installs the eager executor)
from spmd._src.api import ShapeDtypeStruct, eval_shape, jit, make_jaxpr
from spmd._src.array import Array
from spmd._src.autodiff import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
)
from spmd._src.config import config
from spmd._src.numpy import array_methods as _array_methods
from spmd._src.vmap import vmap

_array_methods.install()

from spmd import dtypes, errors, lax, numpy, tree, tree_util  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ShapeDtypeStruct",
    "config",
    "dtypes",
    "errors",
    "eval_shape",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
    "jit",
    "lax",
    "make_jaxpr",
    "numpy",
    "tree",
    "tree_util",
]
