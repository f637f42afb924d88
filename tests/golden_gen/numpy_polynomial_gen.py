"""Record JAX's results for ``tests/cases_numpy_polynomial.py`` into
``tests/golden/numpy_polynomial.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/numpy_polynomial_gen.py``.

For every case, ``fn(*args)`` is run eagerly and under ``jax.jit`` (the jit result is stored only
where it differs), and for cases with ``grad``, ``jax.grad`` of ``weighted_loss`` with respect to
those arguments. Leaves are recorded as in ``numpy_gen.py`` (dtype name, weak type, shape,
flattened values; a complex leaf's values are ``{"real": [...], "imag": [...]}``). A case that
raises records the exception class, which must be what the case declares (``error=``);
otherwise the script reports it and exits non-zero.

JAX's caches are cleared before each case: in JAX 0.10.2 ``jnp.interp`` called with ``period``
after a call with ``left``/``right`` (or the other way round) can reuse the other call's compiled
program and return its results.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

OUT = TESTS / "golden" / "numpy_polynomial.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_numpy_polynomial import CASES, weighted_loss
    from jax import lax
    from numpy_gen import as_jax, run, write_golden

    to_jax = functools.partial(as_jax, jnp)

    golden, problems = {}, []
    for c in CASES:
        jax.clear_caches()
        fn, args = c.build(jnp, lax)
        args = [to_jax(a) for a in args]
        entry = {}
        eager, err = run(fn, args)
        if err is not None:
            entry["error"] = type(err).__name__
            if c.error != type(err).__name__:
                problems.append(f"{c.name}: eager raised {type(err).__name__}: {err}")
        else:
            if c.error is not None:
                problems.append(f"{c.name}: expected {c.error}, got a result")
            entry["eager"] = eager
            if c.jit:
                jax.clear_caches()
                jitted, err = run(jax.jit(fn), args)
                if err is not None:
                    problems.append(f"{c.name}: jit raised {type(err).__name__}: {err}")
                elif jitted != eager:
                    entry["jit"] = jitted
            if c.grad:
                jax.clear_caches()
                g, err = run(jax.grad(weighted_loss(jnp, fn), argnums=c.grad), args)
                if err is not None:
                    problems.append(f"{c.name}: grad raised {type(err).__name__}: {err}")
                else:
                    entry["grad"] = g
        golden[c.name] = entry

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
