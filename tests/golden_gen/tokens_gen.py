"""Record JAX's results for ``tests/cases_tokens.py`` into ``tests/golden/tokens.json`` (read by
``tests/test_tokens.py``), as ``dot_algorithms_gen.py`` records its cases.

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/tokens_gen.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "tokens.json"

if __name__ == "__main__":
    from dot_algorithms_gen import generate

    generate("cases_tokens", OUT)
