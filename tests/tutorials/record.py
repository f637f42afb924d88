"""How the tutorial programs under tests/tutorials/ record what their cells print.

A program calls ``out(cell, value)`` where the tutorial prints (or shows) a value; ``encode``
turns the value into JSON: an array becomes its dtype, shape, flat values and sharding (mesh
axis sizes and partition spec), a type its text, an exception its class name. The generators
under tests/golden_gen/ record JAX's values with it, the tests spmd's, and ``differences``
compares them: ints, bools, dtypes, shapes, shardings and texts exactly, floats at JAX's test
tolerance for their dtype (or a looser one the cell records).
"""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np

# JAX's default test tolerances (jtu.tolerance), relative and absolute.
TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15, "complex64": 1e-6}


def spec_of(sharding):
    """A NamedSharding as [{axis: size}, [entry, ...]]; any other sharding as its class name."""
    spec = getattr(sharding, "spec", None)
    if spec is None:
        return type(sharding).__name__
    entries = [list(e) if isinstance(e, tuple) else e for e in spec]
    while entries and entries[-1] is None:  # P('x') and P('x', None) are one layout
        entries.pop()
    return [dict(sharding.mesh.shape), entries]


def encode(x):
    if isinstance(x, BaseException):
        return {"error": type(x).__name__}
    if type(x).__name__ in ("PartitionSpec", "P"):  # a tuple in spmd, not in JAX
        return ["P", *[list(e) if isinstance(e, tuple) else e for e in x]]
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {str(k): encode(v) for k, v in sorted(x.items())}
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        a = np.asarray(x)
        vals = a.ravel().tolist()
        if a.dtype.kind == "f":
            vals = [v if math.isfinite(v) else str(v) for v in vals]
        elif a.dtype.kind == "c":  # JSON has no complex numbers: each is its text
            vals = [str(v) for v in vals]
        rec = {"dtype": a.dtype.name, "shape": list(a.shape), "values": vals}
        sharding = getattr(x, "sharding", None)
        if sharding is not None and not isinstance(x, np.ndarray):
            rec["sharding"] = spec_of(sharding)
        return rec
    return str(x)


class Recorder(dict):
    """``rec(cell, value, tol=None)``: the first value a cell records is kept (a shard_map
    body may run more than once)."""

    def __call__(self, cell, value, tol=None):
        if cell not in self:
            self[cell] = {"value": encode(value), **({"tol": tol} if tol else {})}


def note(rec, cell, fn, tol=None):
    """Record ``fn()``, or the class of the exception it raises; return it (or the exception)."""
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 -- the class is the recorded value
        value = e
    rec(cell, value, tol)
    return value


def run_cell(rec, cell, fn, tol=None):
    """Run a cell: record what it prints (as ``cell.out``) and its value or error class;
    return the value (or the exception)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            result = e
    if buf.getvalue():
        rec(cell + ".out", buf.getvalue())
    rec(cell, result, tol)
    return result


def differences(got, want, tol=None, path="") -> list[str]:
    """What differs between two encoded values."""
    if isinstance(want, dict) and "values" in want and isinstance(got, dict):
        errs = [
            f"{path}: {k} {got.get(k)} != {want[k]}"
            for k in ("dtype", "shape", "sharding")
            if got.get(k) != want.get(k)
        ]
        if errs:
            return errs
        t = tol or TOL.get(want["dtype"], 0)
        g, w = got["values"], want["values"]
        if len(g) != len(w):
            return [f"{path}: {len(g)} values != {len(w)}"]
        if want["dtype"].startswith(("float", "bfloat", "complex")):
            ga = np.array([complex(v) if isinstance(v, (list, str)) else v for v in g], complex)
            wa = np.array([complex(v) if isinstance(v, (list, str)) else v for v in w], complex)
            bad = ~(np.isclose(ga, wa, rtol=t, atol=t, equal_nan=True))
        else:
            bad = np.array([a != b for a, b in zip(g, w)], bool)
        if bad.any():
            i = np.flatnonzero(bad)[:4]
            return [f"{path}: {bad.sum()} of {len(w)} values differ, at {i.tolist()}: "
                    f"{[g[j] for j in i]} != {[w[j] for j in i]}"]  # fmt: skip
        return []
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        t = tol or 1e-6
        return [] if abs(got - want) <= t * (1 + abs(want)) else [f"{path}: {got} != {want}"]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return [
            d
            for i, (a, b) in enumerate(zip(got, want))
            for d in differences(a, b, tol, f"{path}[{i}]")
        ]
    if isinstance(want, dict) and isinstance(got, dict) and sorted(got) == sorted(want):
        return [d for k in want for d in differences(got[k], want[k], tol, f"{path}.{k}")]
    return [] if got == want else [f"{path}: {str(got)[:300]} != {str(want)[:300]}"]
