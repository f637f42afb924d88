"""Record JAX's results for ``tests/cases_ad.py`` into ``tests/golden/ad.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/ad_gen.py``.

For every case, ``fn(*args)`` is run eagerly and under ``jax.jit``; the output leaves are
recorded as ``numpy_gen.py`` records them (dtype, weak type, shape, values). The jit result is
stored only where it differs from the eager one. A case that raises is reported, and the
script exits non-zero.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(HERE))

OUT = TESTS / "golden" / "ad.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_ad import CASES
    from jax import lax
    from numpy_gen import record

    def to_jax(a):
        return jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a

    golden, problems = {}, []
    for name, make in CASES.items():
        fn, args = make(jax, jnp, lax)
        args = [to_jax(a) for a in args]
        try:
            eager = record(fn(*args))
            jitted = record(jax.jit(fn)(*args))
        except Exception as e:  # noqa: BLE001 -- every case must run under JAX
            problems.append(f"{name}: {type(e).__name__}: {e}")
            continue
        entry = {"eager": eager}
        if jitted != eager:
            entry["jit"] = jitted
        golden[name] = entry

    lines = [f"{json.dumps(k)}: {json.dumps(golden[k], sort_keys=True)}" for k in sorted(golden)]
    text = "{\n" + json.dumps("jax_version") + ": " + json.dumps(jax.__version__) + ",\n"
    text += json.dumps("cases") + ": {\n" + ",\n".join(lines) + "\n}}\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT}: {len(golden)} cases, {len(text) // 1024} KiB")
    if problems:
        print(f"{len(problems)} problems:\n  " + "\n  ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
