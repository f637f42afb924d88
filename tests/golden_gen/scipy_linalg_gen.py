"""Record JAX's results for ``tests/cases_scipy_linalg.py`` into
``tests/golden/scipy_linalg.json`` (read by ``tests/test_scipy_linalg.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/scipy_linalg_gen.py``.

Each case is recorded as in ``linalg_more_gen.py`` (same leaf encoding, same
``numpy_gen.record_case``: eager, jit where it differs, ``jax.grad`` of the case's loss, or the
exception class and message). Cases marked ``x64`` run with ``jax_enable_x64`` on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "scipy_linalg.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_scipy_linalg import CASES
    from jax import lax
    from linalg_more_gen import loss_of, record
    from numpy_gen import record_case, write_golden

    golden, problems = {}, []
    for c in CASES:
        jax.config.update("jax_enable_x64", c.x64)
        fn, args = c.build(jnp, lax)
        args = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        loss = loss_of(fn, c.loss_fn(jnp), jnp)
        golden[c.name] = record_case(jax, c, fn, args, record, loss, problems)
    jax.config.update("jax_enable_x64", False)

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
