"""Record what JAX's ``jax.flatten_util``, ``jax.example_libraries`` (stax, optimizers) and
``jax.experimental.ode`` give into ``tests/golden/example_libraries.json`` (read by
``tests/test_example_libraries.py``).

Each entry of ``PROGRAMS`` is ``name -> (fn(jax), tol)``: ``fn`` runs on the ``jax`` namespace
it is given (JAX's here, spmd's in the test) and returns a nest of arrays, Python scalars,
strings and containers; ``show`` turns it into plain data (arrays by dtype, weak type, shape and
values). A program that raises records its exception class. ``tol`` is the relative and absolute
float tolerance the test compares with (None: JAX's default test tolerance of the dtype).

Run with real JAX (not spmd), on CPU:
``/path/to/jax/python tests/golden_gen/example_libraries_gen.py``.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "golden" / "example_libraries.json"


def sub(jax, name):
    """``jax.<name>`` (a submodule a bare ``import jax`` does not load)."""
    return importlib.import_module(f"{jax.__name__}.{name}")


def show(jax, v):
    """``v`` as plain data (see the module docstring)."""
    if isinstance(v, (tuple, list)):
        return {type(v).__name__: [show(jax, x) for x in v]}
    if isinstance(v, dict):
        return {"dict": {str(k): show(jax, v[k]) for k in sorted(v)}}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, (jax.Array, np.ndarray, np.generic)):
        a = np.asarray(v)
        vals = a.astype(
            np.float64 if a.dtype.kind in "fV" or a.dtype.name == "bfloat16" else a.dtype
        )
        if a.dtype.kind == "c":
            vals = np.stack([a.real, a.imag], -1).astype(np.float64)
        return {
            "dtype": a.dtype.name,
            "shape": list(a.shape),
            "weak_type": bool(getattr(v, "weak_type", False)),
            "values": vals.ravel().tolist(),
        }
    return {"text": type(v).__name__}


def run(jax, fn):
    try:
        return show(jax, fn(jax))
    except Exception as e:  # noqa: BLE001  (the class is the record)
        return {"error": type(e).__name__}


# --- ravel_pytree -------------------------------------------------------------------------


_TREE_NAMES = (
    "mixed_dict f16_i32 empty bool_i8 py_scalars py_int bf16_f16 c64_f32 nested_none".split()
)


def _trees(jnp):
    return {
        "mixed_dict": {"a": jnp.ones(3), "b": (jnp.arange(2), 2.0)},
        "f16_i32": [jnp.arange(2, dtype=jnp.float16), jnp.arange(2, dtype=jnp.int32) + 5],
        "empty": [],
        "bool_i8": [jnp.array([True, False]), jnp.int8(3)],
        "py_scalars": [1, 2.5],
        "py_int": [7],
        "bf16_f16": [jnp.ones(2, jnp.bfloat16), jnp.full((1,), 3, jnp.float16)],
        "c64_f32": [jnp.array([1 + 2j], jnp.complex64), jnp.float32(1.5)],
        "nested_none": (jnp.arange(6.0).reshape(2, 3), None, {"x": jnp.arange(3.0)}),
    }


def _ravel_round_trip(name):
    def fn(jax):
        flat, unravel = sub(jax, "flatten_util").ravel_pytree(_trees(jax.numpy)[name])
        return [flat, unravel(flat * 2) if flat.size else unravel(flat)]

    return fn


def _ravel_transforms(jax):
    jnp = jax.numpy
    rp = sub(jax, "flatten_util").ravel_pytree
    tree = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.float32(0.5)}
    flat, unravel = rp(tree)

    def loss(t):
        v = rp(t)[0]
        return jnp.sum(jnp.sin(v) * jnp.arange(v.size))

    return [
        jax.jit(lambda t: rp(t)[0])(tree),
        jax.grad(loss)(tree),
        jax.vmap(lambda t: rp(t)[0])({"a": jnp.arange(6.0).reshape(3, 2), "b": jnp.ones(3)}),
        jax.vmap(unravel)(jnp.arange(21.0).reshape(3, 7)),
        jax.jit(unravel)(flat + 1),
        jax.grad(lambda f: jnp.sum(unravel(f)["w"] ** 2))(flat),
        jax.jacfwd(lambda f: rp(unravel(f))[0])(flat[:7]),
    ]


def _unravel_bad(tree_name, arg):
    def fn(jax):
        _, unravel = sub(jax, "flatten_util").ravel_pytree(_trees(jax.numpy)[tree_name])
        return unravel(arg(jax.numpy))

    return fn


PROGRAMS = {}
for _n in _TREE_NAMES:
    PROGRAMS[f"ravel_{_n}"] = (_ravel_round_trip(_n), None)
PROGRAMS["ravel_transforms"] = (_ravel_transforms, None)
PROGRAMS["unravel_wrong_dtype"] = (_unravel_bad("f16_i32", lambda jnp: jnp.ones(4)), None)
PROGRAMS["unravel_wrong_size"] = (
    _unravel_bad("f16_i32", lambda jnp: jnp.ones(3, jnp.float16)),
    None,
)
PROGRAMS["unravel_2d"] = (_unravel_bad("mixed_dict", lambda jnp: jnp.ones((2, 3))), None)
PROGRAMS["unravel_scalar"] = (_unravel_bad("py_int", lambda jnp: jnp.int32(1)), None)
PROGRAMS["unravel_list"] = (_unravel_bad("mixed_dict", lambda jnp: [1.0] * 6), None)
PROGRAMS["unravel_same_dtype_passes"] = (
    _unravel_bad("nested_none", lambda jnp: jnp.arange(9, dtype=jnp.int32)),
    None,
)


def main() -> None:
    import jax

    jax.config.update("jax_platforms", "cpu")
    golden = {name: {"tol": tol, "out": run(jax, fn)} for name, (fn, tol) in PROGRAMS.items()}
    OUT.write_text(
        json.dumps({"jax_version": jax.__version__, "programs": golden}, indent=1) + "\n"
    )
    print(f"wrote {OUT} ({len(golden)} programs)")


if __name__ == "__main__":
    main()
