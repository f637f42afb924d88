"""The code cells of JAX's "Default dtypes and the X64 flag" page (docs/101/default_dtypes.md),
as one program.

``program(jax, rec)`` runs the page's examples in order with ``jax`` being JAX or spmd and
records what each shows: the values and their ``repr`` (the page's doctest output), and for the
request of a 64-bit dtype with x64 off, the warning's class and whether it names the requested
and the truncated dtype (the wording is spmd's own). The page turns ``jax_enable_x64`` on for
its second half; the program does too, and turns it off again at the end (the flag is global
and the page means it for a whole program). The ``JAX_ENABLE_X64`` shell example is left out.

Beyond the page: the same truncation warning from the other places a user names a dtype
(``astype``, a reduction's ``dtype``, a sampler's, ``lax.convert_element_type``), none for
Python's ``int`` and ``float`` (the default of their kind), and the 64-bit defaults of Python
scalars once x64 is on.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def show(cell, value):
        rec(cell, value)
        rec(cell + ".repr", repr(value))

    def warned(cell, fn, requested="float64", truncated="float32"):
        """Run ``fn``, recording its value and the kinds of warning it gives: their classes,
        and whether each names the requested and the truncated dtype (JAX's ``jnp.sum`` warns
        twice, once in sum and once in the conversion it calls: the count is no part of it)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn()
        rec(cell, value)
        kinds = {
            (w.category.__name__, requested in str(w.message), truncated in str(w.message))
            for w in caught
        }
        rec(cell + ".warnings", sorted(kinds))
        return value

    # -- Default setting: 32-bits everywhere
    show("x32.arange", jnp.arange(5))
    show("x32.zeros", jnp.zeros(5))
    show("x32.ones_int", jnp.ones(5, dtype=int))

    # The page's non-executed example: a 64-bit dtype asked for explicitly is truncated.
    x = warned("x32.arange_float64", lambda: jnp.arange(5, dtype="float64"))
    rec("x32.arange_float64.repr", repr(x))

    # (beyond the page) the same warning wherever a user names a 64-bit dtype; none for int/float
    warned("x32.zeros_int64", lambda: jnp.zeros(2, np.int64), "int64", "int32")
    warned("x32.array_complex128", lambda: jnp.array([1j], jnp.complex128), "complex128", "64")
    warned("x32.astype", lambda: jnp.ones(2).astype(np.float64))
    warned("x32.sum", lambda: jnp.sum(jnp.ones(2), dtype=np.float64))
    warned("x32.normal", lambda: jax.random.normal(jax.random.key(0), (2,), np.float64))
    warned("x32.convert", lambda: jax.lax.convert_element_type(jnp.ones(2), np.float64))
    warned("x32.jit_astype", lambda: jax.jit(lambda v: v.astype(np.float64))(jnp.ones(2)))
    warned("x32.python_float", lambda: jnp.zeros(2, float))
    warned("x32.python_int", lambda: jnp.array([1, 2], dtype=int))
    warned("x32.numpy_input", lambda: jnp.asarray(np.ones(2)))

    # -- The X64 flag: enabling 64-bit values
    jax.config.update("jax_enable_x64", True)
    try:
        show("x64.arange", jnp.arange(5))
        show("x64.zeros", jnp.zeros(5))
        show("x64.ones_int", jnp.ones(5, dtype=int))
        # (beyond the page) nothing is truncated, and Python scalars take the 64-bit defaults
        warned("x64.arange_float64", lambda: jnp.arange(5, dtype="float64"))
        show("x64.scalars", [jnp.array(1.0), jnp.array(1), jnp.array(1) + 1, jnp.array(1j)])
        show("x64.numpy_input", jnp.asarray(np.ones(2)))
    finally:
        jax.config.update("jax_enable_x64", False)
    show("x32.again", jnp.arange(5))
