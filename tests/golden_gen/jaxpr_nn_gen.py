"""Record JAX's printed jaxprs for ``tests/cases_jaxpr_nn.py`` into
``tests/golden/jaxpr_nn.json`` (the same format as ``jaxpr_gen.py``'s ``jaxpr.json``; both are
checked by ``tests/test_golden_jaxpr.py``).

Run with real JAX (not spmd): ``/path/to/jax/python tests/golden_gen/jaxpr_nn_gen.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

OUT = TESTS / "golden" / "jaxpr_nn.json"


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_jaxpr_nn import CASES
    from jax import lax
    from jaxpr_gen import mesh_order_manual_axes

    golden = {}
    for name, make in CASES.items():
        fn, args = make(jax, jnp, lax)
        golden[name] = mesh_order_manual_axes(str(jax.make_jaxpr(fn)(*args)))
    out = {"jax_version": jax.__version__, "cases": golden}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(golden)} cases")


if __name__ == "__main__":
    main()
