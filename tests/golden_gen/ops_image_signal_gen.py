"""Record JAX's results for ``tests/cases_ops_image_signal.py`` into
``tests/golden/ops_image_signal.json`` (read by ``tests/test_ops_image_signal.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/ops_image_signal_gen.py``.

For every case, ``fn(*args)`` runs eagerly and (unless the case says ``jit=False``) under
``jax.jit``; each output leaf is recorded as its dtype name, weak type, shape and flattened values
(complex values as their real and imaginary parts; floats as the shortest decimal naming the value
in its dtype; NaN and infinities as strings). The jit result is stored only where it differs from
the eager one. Cases with ``grad`` argnums also record ``jax.grad`` of the case's loss. A case
that raises records the exception class and message; the class must be the one the case declares.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "ops_image_signal.json"


def record(out) -> dict:
    from cases_ops_image_signal import flatten
    from linalg_more_gen import record_leaf  # the same leaf encoding

    tree, leaves = flatten(out)
    return {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}


def main() -> None:
    import jax
    import jax.image  # noqa: F401 -- the modules the cases reach by name
    import jax.numpy as jnp
    import jax.ops  # noqa: F401
    import jax.scipy.signal  # noqa: F401
    from cases_ops_image_signal import CASES
    from jax import lax
    from numpy_gen import record_case, write_golden

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a

    warnings.simplefilter("ignore")  # complex-input and nperseg warnings: not recorded
    golden, problems = {}, []
    for c in CASES:
        fn, args = c.build(jnp, lax)
        args = [to_jax(a) for a in args]
        loss = lambda *a, f=fn, c=c: c.loss_fn(jnp)(jnp, f(*a))  # noqa: E731
        golden[c.name] = record_case(jax, c, fn, args, record, loss, problems)

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
