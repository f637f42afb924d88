"""Record JAX's results for ``tests/cases_numpy.py`` into ``tests/golden/numpy.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/numpy_gen.py``.

For every case, ``fn(*args)`` is run eagerly and under ``jax.jit``; each output leaf is recorded
as its dtype name, weak type, shape and flattened values (floats as the shortest decimal that
names the value in its own dtype; NaN and infinities as the strings ``"nan"``, ``"inf"``,
``"-inf"``). The jit result is stored only where it differs from the eager one. A case that
raises records the exception class; that must be what the case declares (``error=``), else
the script reports it and exits non-zero so the case can be fixed.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "golden" / "numpy.json"


def encode_values(a: np.ndarray) -> list:
    flat = a.ravel()
    if a.dtype == np.bool_:
        return [bool(v) for v in flat]
    if a.dtype.kind in "iu":
        return [int(v) for v in flat]
    out = []
    for v in flat:
        f = float(v)
        if np.isnan(f):
            out.append("nan")
        elif np.isinf(f):
            out.append("inf" if f > 0 else "-inf")
        else:
            # str() of a NumPy/ml_dtypes scalar is a short decimal that rounds back to it.
            out.append(float(str(v)))
    return out


def record_leaf(x) -> dict:
    if isinstance(x, (bool, int, float)):
        return {"py": type(x).__name__, "value": x}
    a = np.asarray(x)
    if a.dtype.kind == "c":
        # Complex leaves keep their real and imaginary parts.
        return {
            "dtype": a.dtype.name,
            "weak_type": getattr(x, "weak_type", None),
            "shape": list(a.shape),
            "values": {"real": encode_values(a.real), "imag": encode_values(a.imag)},
        }
    return {
        "dtype": a.dtype.name,
        "weak_type": getattr(x, "weak_type", None),
        "shape": list(a.shape),
        "values": encode_values(a),
    }


def record(out) -> dict:
    from cases_numpy import flatten

    tree, leaves = flatten(out)
    return {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}


def write_golden(path: Path, golden: dict, version: str, problems: list[str]) -> None:
    """Write ``{"jax_version", "cases"}`` with one case per line (readable diffs); report the
    problems and exit non-zero if there are any."""
    lines = [f"{json.dumps(k)}: {json.dumps(golden[k], sort_keys=True)}" for k in sorted(golden)]
    text = "{\n" + json.dumps("jax_version") + ": " + json.dumps(version) + ",\n"
    text += json.dumps("cases") + ": {\n" + ",\n".join(lines) + "\n}}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}: {len(golden)} cases, {len(text) // 1024} KiB")
    if problems:
        print(f"{len(problems)} problems:\n  " + "\n  ".join(problems))
        sys.exit(1)


def record_case(jax, case, fn, args, record, loss, problems: list[str]) -> dict:
    """The golden entry of one case of the ``cases_*_more`` families: the eager result, the jit
    result where it differs (``case.jit``), ``jax.grad(loss)`` at ``case.grad``; or, for a call
    that raises, the exception's class and message, which must be ``case.error``'s."""
    entry = {}
    try:
        eager = record(fn(*args))
    except Exception as e:  # noqa: BLE001 -- the class is the golden result
        entry["error"] = type(e).__name__
        entry["message"] = str(e).split("\n")[0]
        if case.error != type(e).__name__:
            problems.append(f"{case.name}: raised {type(e).__name__}: {e}")
        return entry
    if case.error is not None:
        problems.append(f"{case.name}: expected {case.error}, got a result")
    entry["eager"] = eager
    if case.jit:
        jitted = record(jax.jit(fn)(*args))
        if jitted != eager:
            entry["jit"] = jitted
    if case.grad is not None:
        entry["grad"] = record(tuple(jax.grad(loss, argnums=case.grad)(*args)))
    return entry


def as_jax(jnp, a):
    """A NumPy argument as a JAX array (as the spmd test makes it an spmd one); Python scalars
    stay Python scalars (weakly typed)."""
    return jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a


def run(f, args) -> tuple:
    """``(record(f(*args)), None)``, or ``(None, exception)``: the exception's class is the
    golden result of an error case."""
    try:
        return record(f(*args)), None
    except Exception as e:  # noqa: BLE001
        return None, e


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_numpy import CASES
    from jax import lax

    to_jax = functools.partial(as_jax, jnp)

    golden, problems = {}, []
    for c in CASES:
        fn, args = c.build(jnp, lax)
        args = [to_jax(a) for a in args]
        entry = {}
        eager, err = run(fn, args)
        if err is not None:
            entry["error"] = type(err).__name__
            if c.error != type(err).__name__:
                problems.append(f"{c.name}: eager raised {type(err).__name__}: {err}")
        else:
            if c.error is not None:
                problems.append(f"{c.name}: expected {c.error}, got a result")
            entry["eager"] = eager
            if c.jit:
                jitted, err = run(jax.jit(fn), args)
                if err is not None:
                    problems.append(f"{c.name}: jit raised {type(err).__name__}: {err}")
                elif jitted != eager:
                    entry["jit"] = jitted
        golden[c.name] = entry

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
