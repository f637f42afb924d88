"""Record JAX's results for ``tests/cases_dot_algorithms.py`` into
``tests/golden/dot_algorithms.json`` (read by ``tests/test_dot_algorithms.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/dot_algorithms_gen.py``.

Each case is recorded as ``lax_more_gen.py`` records its cases (eager result, the jit result
where it differs, ``jax.grad`` of the weighted sum for cases with ``grad`` argnums, or the
exception class and message); cases named in ``JAXPR_CASES`` also record
``str(jax.make_jaxpr(fn)(*args))``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "dot_algorithms.json"


def generate(cases_module: str, out: Path) -> None:
    """Record the cases of ``cases_module`` (its ``CASES`` and ``JAXPR_CASES``) into ``out``."""
    import importlib

    import jax
    import jax.numpy as jnp
    from cases_lax_more import weighted_sum
    from jax import lax
    from lax_more_gen import record
    from numpy_gen import record_case, write_golden

    mod = importlib.import_module(cases_module)

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, np.ndarray) else a

    golden, problems = {}, []
    for c in mod.CASES:
        fn = c.make(jnp, lax)
        args = [to_jax(a) for a in c.args]
        loss = lambda *a, f=fn: weighted_sum(jnp, f(*a))  # noqa: E731
        golden[c.name] = record_case(jax, c, fn, args, record, loss, problems)
        if c.name in mod.JAXPR_CASES:
            golden[c.name]["jaxpr"] = str(jax.make_jaxpr(fn)(*args))

    write_golden(out, golden, jax.__version__, problems)


def main() -> None:
    generate("cases_dot_algorithms", OUT)


if __name__ == "__main__":
    main()
