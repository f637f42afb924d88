"""Record JAX's printed jaxprs for ``tests/cases_jaxpr.py`` into ``tests/golden/jaxpr.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/jaxpr_gen.py``.

The shard_map cases need 8 CPU devices (set here before JAX is imported). JAX prints a
shard_map's ``newly_manual_axes`` frozenset in hash order, which changes from run to run
(string hashing is randomized); the goldens record it in mesh axis order, as spmd prints it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "golden" / "jaxpr.json"


_MESH = re.compile(r"mesh=Mesh\(([^)]*)\)")
_MANUAL = re.compile(r"newly_manual_axes=frozenset\(\{([^}]*)\}\)")


def mesh_order_manual_axes(text: str) -> str:
    """Rewrite each ``newly_manual_axes=frozenset({...})`` in the axis order of the nearest
    preceding ``mesh=Mesh(...)`` (a shard_map's parameters print sorted: mesh comes first)."""
    out, pos = [], 0
    for m in _MANUAL.finditer(text):
        meshes = list(_MESH.finditer(text, 0, m.start()))
        order = re.findall(r"'([^']*)':", meshes[-1].group(1)) if meshes else []
        names = re.findall(r"'([^']*)'", m.group(1))
        names.sort(key=lambda a: order.index(a) if a in order else len(order))
        out.append(text[pos : m.start()])
        out.append("newly_manual_axes=frozenset({" + ", ".join(f"'{a}'" for a in names) + "})")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def record_cases(cases: dict, out_path: Path) -> None:
    """Write JAX's printed jaxpr of each case (``make(jax, jnp, lax) -> (fn, args)``)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    golden = {}
    for name, make in cases.items():
        fn, args = make(jax, jnp, lax)
        golden[name] = mesh_order_manual_axes(str(jax.make_jaxpr(fn)(*args)))
    out = {"jax_version": jax.__version__, "cases": golden}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out_path}: {len(golden)} cases")


def main() -> None:
    from cases_jaxpr import CASES

    record_cases(CASES, OUT)


if __name__ == "__main__":
    main()
