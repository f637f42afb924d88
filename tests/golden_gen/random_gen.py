"""Record JAX's ``jax.random`` outputs into ``tests/golden/random.json``, as exact bit patterns.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/random_gen.py``.

``jax_threefry_partitionable`` and ``jax_enable_x64`` are read from the environment when JAX is
imported, so the script re-runs itself once per mode (``--mode``) and merges what the children
print. A case is plain data (``CASES``); ``call(random, np, case)`` runs it with either
``jax.random`` or ``spmd.random`` -- ``tests/test_random.py`` loads this file for ``CASES`` and
``call`` and compares every result bit for bit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "golden" / "random.json"

MODES = {
    "partitionable": {"JAX_THREEFRY_PARTITIONABLE": "1", "JAX_ENABLE_X64": "0"},
    "original": {"JAX_THREEFRY_PARTITIONABLE": "0", "JAX_ENABLE_X64": "0"},
    "x64": {"JAX_THREEFRY_PARTITIONABLE": "1", "JAX_ENABLE_X64": "1"},
}


def _cases() -> list[dict]:
    c: list[dict] = []

    def add(fn, **kw):
        c.append({"fn": fn, **kw})

    for seed in (0, 42, -1, 2**31 - 1, -(2**31), 123456789):
        add("PRNGKey", seed=seed)
    add("key", seed=42)
    add("split", seed=0)
    add("split", seed=42, num=5)
    add("split", seed=7, num=[2, 3])
    add("split", seed=7, num=3, typed=True)
    add("fold_in", seed=0, data=7)
    add("fold_in", seed=42, data=2**32 - 1)
    add("fold_in", seed=3, data=0, typed=True)
    add("bits", seed=1, shape=[])
    add("bits", seed=1, shape=[7])
    add("bits", seed=2, shape=[3, 5])
    add("bits", seed=3, shape=[13], dtype="uint8")
    add("bits", seed=3, shape=[9], dtype="uint16")
    for seed in (0, 1, 2):
        add("uniform", seed=seed, shape=[1000])
    add("uniform", seed=4, shape=[50], dtype="float16")
    add("uniform", seed=4, shape=[50], dtype="bfloat16")
    add("uniform", seed=5, shape=[200], minval=-3.0, maxval=5.0)
    add("uniform", seed=5, shape=[200], dtype="bfloat16", minval=-3.0, maxval=5.0)
    add("uniform", seed=5, shape=[200], dtype="float16", minval=0.25, maxval=0.75)
    add("uniform", seed=6, shape=[3, 4], minval=[[0.0], [1.0], [-2.0]], maxval=10.0)
    for seed in (0, 1, 2):
        add("normal", seed=seed, shape=[1000])
    add("normal", seed=3, shape=[])
    add("normal", seed=3, shape=[2, 3, 4], typed=True)
    add("normal", seed=4, shape=[300], dtype="bfloat16")
    add("normal", seed=4, shape=[300], dtype="float16")
    add("normal", seed=5, shape=[6], dtype="complex64")
    add("randint", seed=0, shape=[100], minval=0, maxval=10)
    add("randint", seed=1, shape=[100], minval=-5, maxval=17)
    add("randint", seed=2, shape=[50], minval=-(2**31), maxval=2**31 - 1)
    add("randint", seed=3, shape=[50], minval=-128, maxval=128, dtype="int8")
    add("randint", seed=3, shape=[50], minval=0, maxval=256, dtype="uint8")
    add("randint", seed=4, shape=[20], minval=-1000, maxval=1000, dtype="int16")
    add("randint", seed=5, shape=[2, 3], minval=[0, 10, 100], maxval=[5, 20, 1000])
    add("randint", seed=6, shape=[5], minval=7, maxval=3)
    add("bernoulli", seed=0, p=0.3, shape=[100])
    add("bernoulli", seed=1, p=[0.1, 0.5, 0.9], shape=[4, 3])
    add("bernoulli", seed=2, p=0.01, shape=[100], mode="high")
    add("bernoulli", seed=3, p=[0.25, 0.75])
    add("permutation", seed=0, x=10)
    add("permutation", seed=1, x=1000)
    add("permutation", seed=2, x="arange:3,4", axis=0)
    add("permutation", seed=2, x="arange:3,4", axis=1)
    add("permutation", seed=3, x="arange:3,4", axis=1, independent=True)
    add("choice", seed=0, a=10, shape=[5])
    add("choice", seed=1, a=10, shape=[5], replace=False)
    add("choice", seed=2, a=5, shape=[20], p=[0.1, 0.2, 0.3, 0.15, 0.25])
    add("choice", seed=3, a=50, shape=[30], p="ramp:50")
    add("choice", seed=4, a=5, shape=[3], replace=False, p=[0.1, 0.2, 0.3, 0.15, 0.25])
    add("choice", seed=5, a="arange:4,6", shape=[2, 2], axis=1)
    add("categorical", seed=0, logits="ramp:3,5")
    add("categorical", seed=1, logits="ramp:3,5", axis=0)
    add("categorical", seed=2, logits="ramp:5", shape=[4, 2])
    add("categorical", seed=3, logits="ramp:3,5", shape=[2, 3], replace=False)
    add("truncated_normal", seed=0, lower=-1.5, upper=2.0, shape=[100])
    add("truncated_normal", seed=1, lower=[-1.0, 0.0, 1.0], upper=2.5)
    add("truncated_normal", seed=2, lower=-0.5, upper=0.5, shape=[50], dtype="bfloat16")
    for fn in ("exponential", "gumbel", "laplace", "logistic"):
        for i, dt in enumerate(("float32", "float16", "bfloat16")):
            add(fn, seed=10 + i, shape=[200], dtype=dt)
    add("gumbel", seed=20, shape=[100], mode="high")
    add("rademacher", seed=0, shape=[20])
    return c


def _x64_cases() -> list[dict]:
    c = [
        {"fn": "PRNGKey", "seed": 2**40 + 3},
        {"fn": "PRNGKey", "seed": -5},
        {"fn": "bits", "seed": 1, "shape": [6], "dtype": "uint64"},
        {"fn": "uniform", "seed": 0, "shape": [100], "dtype": "float64"},
        {"fn": "randint", "seed": 1, "shape": [50], "minval": -(2**40), "maxval": 2**40},
        {"fn": "normal", "seed": 2, "shape": [100], "dtype": "float64"},
    ]
    return c


CASES = _cases()
X64_CASES = _x64_cases()


def _array(np, spec, dtype=None):
    """A value from its description: ``"arange:3,4"``, ``"ramp:n,m"`` (positive floats), a
    list, or a scalar."""
    if isinstance(spec, str):
        kind, _, dims = spec.partition(":")
        shape = tuple(int(d) for d in dims.split(","))
        n = 1
        for d in shape:
            n *= d
        if kind == "arange":
            return np.arange(n, dtype=np.int32).reshape(shape)
        return (np.arange(1, n + 1, dtype=np.float32) / n).reshape(shape)
    if isinstance(spec, list):
        return np.asarray(spec, dtype=dtype)
    return spec


def call(random, np, case: dict):
    """Run ``case`` with the module ``random`` (jax.random or spmd.random); returns an array
    (key arrays as their key data)."""
    fn = case["fn"]
    kw = {k: v for k, v in case.items() if k not in ("fn", "seed", "typed")}
    if fn in ("PRNGKey", "key"):
        out = getattr(random, fn)(case["seed"])
        return random.key_data(out)
    key = random.key(case["seed"]) if case.get("typed") else random.PRNGKey(case["seed"])
    f = getattr(random, fn)
    shape = tuple(kw.pop("shape")) if "shape" in kw else None
    dtype = kw.pop("dtype", None)
    if fn == "split":
        out = f(key, tuple(kw["num"]) if isinstance(kw.get("num"), list) else kw.get("num", 2))
    elif fn == "fold_in":
        out = f(key, kw["data"])
    elif fn == "randint":
        lo, hi = _array(np, kw["minval"], np.int32), _array(np, kw["maxval"], np.int32)
        out = f(key, shape, lo, hi, dtype=dtype)
    elif fn == "uniform":
        lo = _array(np, kw.get("minval", 0.0), np.float32)
        hi = _array(np, kw.get("maxval", 1.0), np.float32)
        out = f(key, shape, dtype=dtype, minval=lo, maxval=hi)
    elif fn == "bernoulli":
        out = f(key, _array(np, kw["p"], np.float32), shape, mode=kw.get("mode", "low"))
    elif fn == "permutation":
        out = f(key, _array(np, kw["x"]), axis=kw.get("axis", 0),
                independent=kw.get("independent", False))  # fmt: skip
    elif fn == "choice":
        p = kw.get("p")
        p = None if p is None else _array(np, p, np.float32)
        out = f(key, _array(np, kw["a"]), shape, replace=kw.get("replace", True), p=p,
                axis=kw.get("axis", 0))  # fmt: skip
    elif fn == "categorical":
        out = f(key, _array(np, kw["logits"]), axis=kw.get("axis", -1), shape=shape,
                replace=kw.get("replace", True))  # fmt: skip
    elif fn == "truncated_normal":
        lo = _array(np, kw["lower"], np.float32)
        hi = _array(np, kw["upper"], np.float32)
        out = f(key, lo, hi, shape, dtype=dtype)
    elif fn == "gumbel":
        out = f(key, shape, dtype=dtype, mode=kw.get("mode"))
    else:  # bits, normal, exponential, laplace, logistic, rademacher
        out = f(key, shape, dtype=dtype) if shape is not None else f(key, dtype=dtype)
    if not hasattr(out, "shape") or str(getattr(out, "dtype", "")).startswith("key<"):
        out = random.key_data(out)
    return out


def encode(np, out) -> dict:
    """An array as its dtype, shape and bit patterns (unsigned integers)."""
    a = np.asarray(out)
    if a.dtype == np.bool_:
        bits = a.astype(np.uint8)
    elif a.dtype.kind == "c":
        re = np.ascontiguousarray(a.real)
        bits = np.stack([re, np.ascontiguousarray(a.imag)], -1).view(f"u{re.dtype.itemsize}")
    else:
        bits = a.view(f"u{a.dtype.itemsize}")
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": bits.ravel().tolist()}


def run(script: str, out: Path, cases_for, call_fn) -> None:
    """Record ``call_fn(jax.random, np, case)`` for ``cases_for(mode)`` in each mode of ``MODES``,
    each in a fresh interpreter (``script --mode MODE``) with the mode's environment, and write
    the records to ``out`` (the generators of the other random golden files use this too)."""
    if "--mode" in sys.argv:
        import jax
        import numpy as np

        mode = sys.argv[sys.argv.index("--mode") + 1]
        assert jax.config.jax_threefry_partitionable == (mode != "original")
        recs = [
            {"mode": mode, "case": c, "out": encode(np, call_fn(jax.random, np, c))}
            for c in cases_for(mode)
        ]
        print(json.dumps(recs))
        return
    records = []
    for mode, env in MODES.items():
        res = subprocess.run(
            [sys.executable, script, "--mode", mode],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        records += json.loads(res.stdout)
    import jax

    out.write_text(json.dumps({"jax_version": jax.__version__, "records": records}) + "\n")
    print(f"wrote {len(records)} records to {out}")


def main() -> None:
    run(__file__, OUT, lambda mode: X64_CASES if mode == "x64" else CASES, call)


if __name__ == "__main__":
    main()
