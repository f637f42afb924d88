"""Record JAX 0.10's float contractions bit for bit into ``tests/golden/dot_order.json`` (read by
``tests/test_dot.py``): vector dots in each of the summation orders XLA's CPU backend uses
(fused multiply-adds in order, the vectorized K = 5..8 loop, the reduction tree of windows of
32, YNNPACK's 16/8 lanes), in float32 and float64.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/dot_order_gen.py``.

Each case names a program (``PROGRAMS``), a dtype, a seed and the operand shapes; the operands
are ``np.random.RandomState(seed).standard_normal(shape)`` in that dtype (the test rebuilds them
the same way), with ``negzero`` cases turning the products into signed zeros. Results are
stored as the integers of their bit patterns.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "golden" / "dot_order.json"

# (program, dtype, shapes): the program's operands have these shapes.
CASES = [
    ("vmap_vdot", "float32", [(8, 3), (8, 3)]),
    ("vmap_vdot", "float32", [(8, 2), (8, 2)]),
    ("vmap_vdot", "float32", [(8, 4), (8, 4)]),
    ("vmap_vdot", "float32", [(8, 5), (8, 5)]),
    ("vmap_vdot", "float32", [(8, 8), (8, 8)]),
    ("vmap_vdot", "float32", [(7, 6), (7, 6)]),
    ("vmap_vdot", "float32", [(12, 6), (12, 6)]),
    ("vmap_vdot", "float32", [(19, 7), (19, 7)]),
    ("vmap_vdot", "float32", [(47, 5), (47, 5)]),
    ("vmap_vdot", "float32", [(100, 9), (100, 9)]),
    ("vmap_vdot", "float32", [(50, 32), (50, 32)]),
    ("vmap_vdot", "float32", [(30, 100), (30, 100)]),
    ("vmap_vdot", "float32", [(1366, 3), (1366, 3)]),
    ("vmap_vdot", "float32", [(2048, 2), (2048, 2)]),
    ("vmap_vdot", "float32", [(300, 16), (300, 16)]),
    ("vmap_vdot", "float32", [(200, 33), (200, 33)]),
    ("vmap_vdot", "float32", [(52, 80), (52, 80)]),
    ("vmap_vdot_in1", "float32", [(8, 8), (8, 8)]),
    ("vmap_vdot_in1", "float32", [(3, 2000), (3, 2000)]),
    ("vmap_vdot_mixed", "float32", [(8, 6), (6, 8)]),
    ("vmap2_vdot", "float32", [(8, 100, 5), (8, 100, 5)]),
    ("vmap2_vdot", "float32", [(8, 200, 3), (8, 200, 3)]),
    ("vdot", "float32", [(3,), (3,)]),
    ("vdot", "float32", [(33,), (33,)]),
    ("vdot", "float32", [(1000,), (1000,)]),
    ("vdot", "float32", [(1500,), (1500,)]),
    ("einsum_bk", "float32", [(8, 3), (8, 3)]),
    ("dg_unit_free", "float32", [(8, 1, 3), (8, 3, 1)]),
    ("jit_vmap_vdot", "float32", [(8, 3), (8, 3)]),
    ("vmap_vdot", "float64", [(8, 3), (8, 3)]),
    ("vmap_vdot", "float64", [(8, 6), (8, 6)]),
    ("vmap_vdot", "float64", [(12, 5), (12, 5)]),
    ("vmap_vdot", "float64", [(21, 7), (21, 7)]),
    ("vmap_vdot", "float64", [(10, 40), (10, 40)]),
    ("vmap_vdot", "float64", [(2048, 2), (2048, 2)]),
    ("vmap_vdot", "float64", [(300, 16), (300, 16)]),
    ("vmap_vdot", "float64", [(125, 33), (125, 33)]),
    ("vdot", "float64", [(100,), (100,)]),
    ("vmap_vdot#negzero", "float32", [(8, 3), (8, 3)]),
    ("vmap_vdot#negzero", "float32", [(2048, 3), (2048, 3)]),
    ("vmap_vdot#negzero", "float32", [(300, 16), (300, 16)]),
    ("vmap_vdot#negzero", "float32", [(8, 40), (8, 40)]),
]


def operands(i: int, name: str, dtype: str, shapes) -> list:
    """The operands of case ``i`` (rebuilt the same way by the test)."""
    rng = np.random.RandomState(1000 + i)
    args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if name.endswith("#negzero"):
        # Products +0 and -0 (-0 where the left operand is -0): the sign of a zero sum
        # depends on where the sums start.
        args[0][...] = -0.0
        args[0][..., ::3] = 0.0
        args[1][...] = 1.0
    return args


def programs(jax, jnp, lax) -> dict:
    def vdot(a, b):
        return jnp.vdot(a, b)

    return {
        "vmap_vdot": jax.vmap(vdot),
        "vmap_vdot_in1": jax.vmap(vdot, in_axes=1),
        "vmap_vdot_mixed": jax.vmap(vdot, in_axes=(0, 1)),
        "vmap2_vdot": jax.vmap(jax.vmap(vdot)),
        "jit_vmap_vdot": jax.jit(jax.vmap(vdot)),
        "vdot": vdot,
        "einsum_bk": lambda a, b: jnp.einsum("bk,bk->b", a, b),
        "dg_unit_free": lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
    }


def bits(x) -> dict:
    a = np.asarray(x)
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": a.view(u).ravel().tolist()}


def main() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    progs = programs(jax, jnp, lax)
    golden = {"jax_version": jax.__version__, "cases": []}
    for i, (name, dtype, shapes) in enumerate(CASES):
        out = progs[name.split("#")[0]](*operands(i, name, dtype, shapes))
        golden["cases"].append({"program": name, "dtype": dtype, "shapes": shapes, **bits(out)})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
