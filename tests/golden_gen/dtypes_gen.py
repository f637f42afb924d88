"""Record JAX's dtype semantics into ``tests/golden/promotion.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/dtypes_gen.py``.

Each promotion mode (x64 off, x64 on, strict promotion) needs a fresh JAX process because the
flags are read from the environment at import, so the script re-runs itself once per mode with
``--mode`` and merges the JSON each child prints.

Arguments are described by labels that ``tests/test_dtypes.py`` rebuilds without JAX:

- ``<dtype name>``: the numpy dtype object, e.g. ``int8``, ``bfloat16``, ``float0``;
- ``py:<type>``: a Python scalar value (``True``, ``1``, ``1.0``, ``1j``);
- ``pytype:<type>``: the Python type itself (``int``, ``float``, ...), a weak dtype-like;
- ``np:<dtype>`` / ``npscalar:<dtype>``: a 0-d numpy array / numpy scalar of that dtype;
- ``weak:<dtype>``: a JAX array of that dtype with ``weak_type=True``; its actual dtype and weak
  flag in each mode are recorded under ``args``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

STRONG = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "int4", "uint4", "float8_e4m3fn", "float8_e5m2", "float0",
]  # fmt: skip
PY = ["py:bool", "py:int", "py:float", "py:complex"]
PYTYPE = ["pytype:bool", "pytype:int", "pytype:float", "pytype:complex"]
NUMPY = ["np:float64", "np:int64", "npscalar:float64", "npscalar:int32"]
WEAK = [
    "weak:bool", "weak:int16", "weak:uint8", "weak:int32", "weak:float16", "weak:bfloat16",
    "weak:float32", "weak:complex64",
]  # fmt: skip
RESULT_TYPE_LABELS = STRONG + PY + PYTYPE + NUMPY + WEAK
PROMOTE_TYPES_LABELS = STRONG + PYTYPE
# dtypes whose jaxpr short name and canonical form are recorded
NAME_DTYPES = [s for s in STRONG] + [
    "int2", "uint2", "float8_e4m3", "float8_e3m4", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e8m0fnu", "float4_e2m1fn",
]  # fmt: skip

MODES = {
    "x32": {"JAX_ENABLE_X64": "0", "JAX_NUMPY_DTYPE_PROMOTION": "standard"},
    "x64": {"JAX_ENABLE_X64": "1", "JAX_NUMPY_DTYPE_PROMOTION": "standard"},
    "strict": {"JAX_ENABLE_X64": "0", "JAX_NUMPY_DTYPE_PROMOTION": "strict"},
}

OUT = Path(__file__).resolve().parent.parent / "golden" / "promotion.json"


def _record_mode() -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax._src.lax import lax as lax_internal  # only to build weak arrays of any dtype

    def np_dtype(name):
        return jax.dtypes.float0 if name == "float0" else np.dtype(name)

    def dtype_name(dt) -> str:
        return "float0" if dt == jax.dtypes.float0 else np.dtype(dt).name

    def make(label):
        kind, _, name = label.rpartition(":")
        py = {"bool": bool, "int": int, "float": float, "complex": complex}
        if kind == "":
            return np_dtype(name)
        if kind == "py":
            return {"bool": True, "int": 1, "float": 1.0, "complex": 1j}[name]
        if kind == "pytype":
            return py[name]
        if kind == "np":
            return np.zeros((), name)
        if kind == "npscalar":
            return np.dtype(name).type(1)
        if kind == "weak":
            dt = np.dtype(name)
            return lax_internal._convert_element_type(jnp.zeros((), dt), dt, weak_type=True)
        raise ValueError(label)

    def outcome(f, *args):
        try:
            r = f(*args)
        except Exception as e:  # noqa: BLE001 -- record the class so the test can expect it
            return "error:" + type(e).__name__
        if isinstance(r, tuple):
            return [dtype_name(r[0]), bool(r[1])]
        return dtype_name(r)

    args = {}
    for label in RESULT_TYPE_LABELS:
        if label.startswith("weak:"):
            x = make(label)
            args[label] = [dtype_name(x.dtype), bool(x.weak_type)]

    def rt(*labels):
        values = [make(label) for label in labels]
        return outcome(lambda: jax.dtypes.result_type(*values, return_weak_type_flag=True))

    result_type = {}
    for a in RESULT_TYPE_LABELS:
        result_type[a] = rt(a)
        for b in RESULT_TYPE_LABELS:
            result_type[f"{a},{b}"] = rt(a, b)
    # A few triples: the all-weak rule and associativity with mixed kinds.
    triples = [
        ("weak:uint8", "weak:uint8", "py:int"),
        ("int8", "uint8", "py:float"),
        ("bool", "py:int", "weak:float16"),
        ("uint32", "int32", "float16"),
        ("bfloat16", "float16", "py:complex"),
        ("int4", "py:int", "py:int"),
    ]
    for t in triples:
        result_type[",".join(t)] = rt(*t)

    promote_types = {}
    for a in PROMOTE_TYPES_LABELS:
        for b in PROMOTE_TYPES_LABELS:
            promote_types[f"{a},{b}"] = outcome(jnp.promote_types, make(a), make(b))

    dtype_of = {}
    for label in RESULT_TYPE_LABELS:
        from jax._src import dtypes as dtypes_internal  # jax.dtypes has no public dtype()

        dtype_of[label] = outcome(dtypes_internal.dtype, make(label))

    short_names, canonical = {}, {}
    for name in NAME_DTYPES:
        dt = np_dtype(name)
        canonical[name] = outcome(jax.dtypes.canonicalize_dtype, dt)
        try:
            text = str(jax.make_jaxpr(lambda x: x)(np.zeros((), dt)))
            # "{ lambda ; a:f32[]. let  in (a,) }" -> "f32"
            short_names[name] = text.split("a:", 1)[1].split("[", 1)[0]
        except Exception as e:  # noqa: BLE001
            short_names[name] = "error:" + type(e).__name__
    for t in ["bool", "int", "float", "complex"]:
        canonical["pytype:" + t] = outcome(jax.dtypes.canonicalize_dtype, make("pytype:" + t))

    return {
        "args": args,
        "result_type": result_type,
        "promote_types": promote_types,
        "dtype": dtype_of,
        "short_name": short_names,
        "canonicalize_dtype": canonical,
    }


def _dump(obj, indent: str = "") -> str:
    """JSON with sorted keys, one leaf per line (small, stable diffs)."""
    if not isinstance(obj, dict):
        return json.dumps(obj)
    inner = indent + " "
    items = [f"{inner}{json.dumps(k)}: {_dump(obj[k], inner)}" for k in sorted(obj)]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--mode":
        json.dump(_record_mode(), sys.stdout)
        return
    import jax

    out = {"jax_version": jax.__version__}
    for mode, env in MODES.items():
        proc = subprocess.run(
            [sys.executable, __file__, "--mode", mode],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        out[mode] = json.loads(proc.stdout)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(_dump(out) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
