"""Record JAX's results for ``tests/cases_linalg_more.py`` into
``tests/golden/linalg_more.json`` (read by ``tests/test_linalg_more.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/linalg_more_gen.py``.

For every case, ``fn(*args)`` runs eagerly and under ``jax.jit``; each output leaf is recorded
as its dtype name, weak type, shape and flattened values (complex values as their real and
imaginary parts; floats as the shortest decimal that names the value in its own dtype; NaN and
infinities as the strings ``"nan"``, ``"inf"``, ``"-inf"``). The jit result is stored only where
it differs from the eager one. Cases with ``grad`` argnums also record ``jax.grad`` of the case's
scalar loss by those arguments. Cases marked ``x64`` run with ``jax_enable_x64`` on. A case that
raises records the exception class and message; the class must be what the case declares
(``error=``), else the script reports it and exits non-zero.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "golden" / "linalg_more.json"


def record_leaf(x) -> dict:
    from numpy_gen import encode_values

    a = np.asarray(x)
    rec = {"dtype": a.dtype.name, "weak_type": getattr(x, "weak_type", None), "shape": a.shape}
    flat = a.ravel()
    if a.dtype == np.bool_:
        rec["values"] = [bool(v) for v in flat]
    elif a.dtype.kind in "iu":
        rec["values"] = [int(v) for v in flat]
    elif a.dtype.kind == "c":
        rec["values"] = encode_values(flat.real)
        rec["imag"] = encode_values(flat.imag)
    else:
        rec["values"] = encode_values(flat)
    rec["shape"] = list(a.shape)
    return rec


def record(out) -> dict:
    from cases_linalg_more import flatten

    tree, leaves = flatten(out)
    return {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}


def loss_of(fn, loss, jnp):
    return lambda *a: loss(jnp, fn(*a))


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_linalg_more import CASES
    from jax import lax
    from numpy_gen import record_case, write_golden

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, np.ndarray) and a.dtype != object else a

    golden, problems = {}, []
    for c in CASES:
        jax.config.update("jax_enable_x64", c.x64)
        fn, args = c.build(jnp, lax)
        args = [to_jax(a) for a in args]
        loss = loss_of(fn, c.loss_fn(jnp), jnp)
        golden[c.name] = record_case(jax, c, fn, args, record, loss, problems)
    jax.config.update("jax_enable_x64", False)

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
