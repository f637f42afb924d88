"""Record JAX's results for ``tests/cases_lax_linalg.py`` into ``tests/golden/lax_linalg.json``
(read by ``tests/test_lax_linalg.py``), in ``linalg_more_gen``'s format (eager, jit where it
differs, gradients, errors).

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/lax_linalg_gen.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "golden" / "lax_linalg.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_lax_linalg import CASES
    from jax import lax
    from linalg_more_gen import loss_of, record
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
