"""Record JAX's ``jax.scipy.stats`` results for ``tests/cases_scipy_stats.py`` into
``tests/golden/scipy_stats.json`` (read by ``tests/test_scipy_stats.py``).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/scipy_stats_gen.py [PATTERN ...]`` (patterns: re-record
only the cases whose names match, keeping the rest of the file).

For every case, ``fn(*args)`` runs eagerly and (``case.jit``) under ``jax.jit``; each output
leaf is recorded as its dtype name, weak type, shape and flattened values. The jit result is
stored only where it differs from the eager one. Cases with ``grad`` argnums also record
``jax.grad`` of the sum of the output by those arguments. A case that raises records the
exception class and message; the class must be what the case declares (``error=``), else the
script reports it and exits non-zero. ``x64`` cases run with 64-bit types on. Where JAX's
gradient raises, ``grad_error`` records the class instead of a gradient.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from fnmatch import fnmatch
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "scipy_stats.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    import jax.scipy.stats as stats
    from cases_scipy_stats import CASES
    from numpy_gen import record, record_case, write_golden

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, np.ndarray) else a

    # Optional arguments: fnmatch patterns of the cases to re-record; the others keep their
    # entries from the existing file (recording all of them takes JAX many minutes).
    patterns = sys.argv[1:]
    golden, problems = {}, []
    if patterns and OUT.exists():
        golden = json.loads(OUT.read_text())["cases"]
    for x64 in (False, True):
        jax.config.update("jax_enable_x64", x64)
        for c in CASES:
            if c.x64 != x64 or (patterns and not any(fnmatch(c.name, p) for p in patterns)):
                continue
            fn = c.make(stats, jnp, jax.random)
            args = [to_jax(a) for a in c.args]

            def loss(*a, fn=fn):
                return jnp.sum(fn(*a))

            grad_case = c
            if c.grad is not None:
                try:
                    jax.grad(loss, argnums=c.grad)(*args)
                except (TypeError, ValueError) as e:
                    # A ValueError is a documented limit (betainc has no gradient by a or b),
                    # which spmd shares. A TypeError is JAX's own bug (gumbel_r.logpdf: xlogy
                    # of an integer constant gets a float0 tangent); the test checks spmd's
                    # gradient against finite differences there.
                    grad_case = dataclasses.replace(c, grad=None)
                    grad_error = type(e).__name__
                    print(f"{c.name}: JAX's grad raises {grad_error}")
            entry = record_case(jax, grad_case, fn, args, record, loss, problems)
            if grad_case is not c:
                entry["grad_error"] = grad_error
            golden[c.name] = entry

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
