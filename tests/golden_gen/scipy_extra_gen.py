"""Record JAX's results for ``tests/cases_scipy_extra.py`` (``jax.scipy.optimize``,
``jax.scipy.integrate``, ``jax.scipy.ndimage``) into ``tests/golden/scipy_extra.json``
(read by ``tests/test_scipy_extra.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/scipy_extra_gen.py``.

Each case is one call (its jit, vmap or grad is part of the case's function); every output
leaf is recorded as in ``numpy_gen.py`` (dtype, weak type, shape, values), or, for a call that
raises, the exception class and message, which must be the class the case declares. Cases
marked ``x64`` run with ``jax_enable_x64`` on.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "scipy_extra.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    import jax.scipy.fft
    import jax.scipy.integrate
    import jax.scipy.ndimage
    import jax.scipy.optimize
    from cases_scipy_extra import CASES, flatten
    from numpy_gen import as_jax, record_leaf, write_golden

    ns = types.SimpleNamespace(
        jax=jax,
        jnp=jnp,
        optimize=jax.scipy.optimize,
        integrate=jax.scipy.integrate,
        ndimage=jax.scipy.ndimage,
        fft=jax.scipy.fft,
    )
    golden, problems = {}, []
    for c in CASES:
        jax.config.update("jax_enable_x64", c.x64)
        fn = c.make(ns)
        args = [as_jax(jnp, a) for a in c.args]
        try:
            tree, leaves = flatten(fn(*args))
        except Exception as e:  # noqa: BLE001 -- the class is the golden result
            golden[c.name] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
            if c.error != type(e).__name__:
                problems.append(f"{c.name}: raised {type(e).__name__}: {e}")
            continue
        if c.error is not None:
            problems.append(f"{c.name}: expected {c.error}, got a result")
        golden[c.name] = {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}
    jax.config.update("jax_enable_x64", False)

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
