"""Record JAX's results for ``tests/cases_lax_more.py`` into ``tests/golden/lax_more.json``
(read by ``tests/test_lax_more.py``).

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/lax_more_gen.py``.

For every case, ``fn(*args)`` runs eagerly and (unless the case says ``jit=False``) under
``jax.jit``; each output leaf is recorded as its dtype name, weak type, shape and flattened values
(floats as the shortest decimal naming the value in its dtype; NaN and infinities as strings).
The jit result is stored only where it differs from the eager one. Cases with ``grad`` argnums
also record ``jax.grad`` of ``weighted_sum(fn(*args))``. A case that raises records the
exception class and message; the class must be the one the case declares.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "lax_more.json"


def record_leaf(x) -> dict:
    from numpy_gen import encode_values

    a = np.asarray(x)
    rec = {"dtype": a.dtype.name, "weak_type": getattr(x, "weak_type", None), "shape": a.shape}
    flat = a.ravel()
    if a.dtype == np.bool_:
        rec["values"] = [bool(v) for v in flat]
    elif a.dtype.kind in "iu":
        rec["values"] = [int(v) for v in flat]
    else:
        rec["values"] = encode_values(flat)
    rec["shape"] = list(a.shape)
    return rec


def record(out) -> dict:
    from cases_lax_more import flatten

    tree, leaves = flatten(out)
    return {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_lax_more import CASES, weighted_sum
    from jax import lax
    from numpy_gen import write_golden

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, np.ndarray) else a

    golden, problems = {}, []
    for c in CASES:
        fn = c.make(jnp, lax)
        args = [to_jax(a) for a in c.args]
        entry = {}
        try:
            eager = record(fn(*args))
        except Exception as e:  # noqa: BLE001 -- the class is the golden result
            entry["error"] = type(e).__name__
            entry["message"] = str(e).split("\n")[0]
            if c.error != type(e).__name__:
                problems.append(f"{c.name}: raised {type(e).__name__}: {e}")
            golden[c.name] = entry
            continue
        if c.error is not None:
            problems.append(f"{c.name}: expected {c.error}, got a result")
        entry["eager"] = eager
        if c.jit:
            jitted = record(jax.jit(fn)(*args))
            if jitted != eager:
                entry["jit"] = jitted
        if c.grad is not None:
            g = jax.grad(lambda *a, f=fn: weighted_sum(jnp, f(*a)), argnums=c.grad)(*args)
            entry["grad"] = record(tuple(g))
        golden[c.name] = entry

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
