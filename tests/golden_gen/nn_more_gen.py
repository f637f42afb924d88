"""Record JAX's results for ``tests/cases_nn_more.py`` into ``tests/golden/nn_more.json``
(read by ``tests/test_nn_more.py``).

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/nn_more_gen.py``.

For every case, ``fn(*args)`` runs eagerly and under ``jax.jit``; each output leaf is recorded by
``numpy_gen.record`` (dtype name, weak type, shape, flattened values). The jit result is stored
only where it differs from the eager one. Cases with ``grad`` argnums also record ``jax.grad`` of
the case's scalar loss by those arguments. A case that raises records the exception class and
the first line of its message; the class must be what the case declares (``error=``), else the
script reports it and exits non-zero.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

OUT = TESTS / "golden" / "nn_more.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_nn_more import CASES, loss
    from jax import lax, nn
    from numpy_gen import as_jax, run, write_golden

    golden, problems = {}, []
    for c in CASES:
        fn, args = c.build(nn, jnp, lax)
        args = [as_jax(jnp, a) for a in args]
        entry = {}
        eager, err = run(fn, args)
        if err is not None:
            entry["error"] = type(err).__name__
            entry["message"] = str(err).split("\n")[0]
            if c.error != type(err).__name__:
                problems.append(f"{c.name}: raised {type(err).__name__}: {err}")
            golden[c.name] = entry
            continue
        if c.error is not None:
            problems.append(f"{c.name}: expected {c.error}, got a result")
        entry["eager"] = eager
        if c.jit:
            jitted, err = run(jax.jit(fn), args)
            if err is not None:
                problems.append(f"{c.name}: jit raised {type(err).__name__}: {err}")
            elif jitted != eager:
                entry["jit"] = jitted
        if c.grad is not None:
            g = jax.grad(lambda *a, fn=fn: loss(jnp, fn(*a)), argnums=c.grad)
            grads, err = run(g, args)
            if err is not None:
                problems.append(f"{c.name}: grad raised {type(err).__name__}: {err}")
            else:
                entry["grad"] = grads
        golden[c.name] = entry
    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    np.set_printoptions(precision=8)
    main()
