"""Record JAX's printed jaxprs for ``tests/cases_jaxpr_nn.py`` into
``tests/golden/jaxpr_nn.json`` (the same format as ``jaxpr_gen.py``'s ``jaxpr.json``; both are
checked by ``tests/test_golden_jaxpr.py``).

Run with real JAX (not spmd): ``/path/to/jax/python tests/golden_gen/jaxpr_nn_gen.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

OUT = TESTS / "golden" / "jaxpr_nn.json"


def main() -> None:
    from cases_jaxpr_nn import CASES
    from jaxpr_gen import record_cases

    record_cases(CASES, OUT)


if __name__ == "__main__":
    main()
