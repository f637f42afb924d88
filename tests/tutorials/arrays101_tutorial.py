"""The code cells of JAX's "Arrays and jax.numpy" page (docs/101/arrays.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: the values (with their sharding), the printed text (``str`` for a
``print``, ``repr`` for a cell's last expression, as the notebook shows them), types as text and
errors as their class. The page's two non-executed snippets (enabling x64, a simplified
``jnp.sin``) are left out; the NumPy-only cells run too, as the page shows their output beside
JAX's.
"""

from __future__ import annotations

import importlib

import numpy as np

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def show(cell, value, printed=True):
        """A printed value (its ``str``) or a cell's last expression (its ``repr``)."""
        rec(cell, value)
        rec(cell + ".text", str(value) if printed else repr(value))

    def error(cell, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            rec(cell, e)
        else:
            rec(cell, "no error")

    # -- From NumPy to JAX
    x = jnp.arange(9.0).reshape(3, 3)
    y = jnp.ones(3)
    show("numpy.matvec", x @ y)
    show("numpy.sum", x.sum(axis=0))
    show("numpy.index", x[1, :2])
    rec("numpy.isinstance", isinstance(x, jax.Array))
    rec("numpy.typeof", str(jax.typeof(x)))

    # -- JAX arrays are immutable
    x_np = np.arange(10)
    x_np[0] = 10
    rec("immutable.numpy", str(x_np))

    x = jnp.arange(10)

    def assign():
        x[0] = 10

    error("immutable.assign", assign)
    y = x.at[0].set(10)
    show("immutable.x", x)
    show("immutable.set", y)
    show("immutable.add", x.at[3].add(100))
    show("immutable.max", x.at[:3].max(5))

    # -- Default dtypes and precision
    rec("dtypes.numpy", str(np.array([1.0, 2.0]).dtype))
    rec("dtypes.jax", str(jnp.array([1.0, 2.0]).dtype))
    i = np.arange(3, dtype=np.int32)
    h = np.ones(3, dtype=np.float16)
    rec("dtypes.promote.numpy", str((i + h).dtype))
    rec("dtypes.promote.jax", str((jnp.asarray(i) + jnp.asarray(h)).dtype))

    # -- Indexing differences
    x = jnp.arange(10)
    show("indexing.clamped", x[11], printed=False)
    show("indexing.dropped", x.at[11].set(99), printed=False)
    error("indexing.list", lambda: jnp.sum([1, 2, 3]))
    show("indexing.array", jnp.sum(jnp.array([1, 2, 3])), printed=False)

    # -- Arrays live on devices
    rec("devices.sharding", x.sharding)
    rec("devices.sharding.text", repr(x.sharding))

    # -- Under the hood: jax.numpy, jax.lax, and XLA
    show("lax.jnp_add", jnp.add(1, 1.0), printed=False)
    lax = jax.lax  # the page's `from jax import lax`
    error("lax.add", lambda: lax.add(1, 1.0))
