"""Record JAX's results for ``tests/cases_fft.py`` into ``tests/golden/fft.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/fft_gen.py``.

For each forward case: the result eagerly and under ``jax.jit`` (the jit result only where it
differs), and for the cases of ``JAXPR_CASES`` the ``make_jaxpr`` text. For each gradient case
``jax.grad`` of the loss, for each jvp case ``jax.jvp``'s primal and tangent outputs, for each
error case the exception class. Arrays are stored as dtype name, shape and flattened values
(complex values as separate real and imaginary lists; floats as the shortest decimal that names
the value in its own dtype; non-finite values as strings).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

OUT = TESTS / "golden" / "fft.json"


def _floats(a: np.ndarray) -> list:
    out = []
    for v in a.ravel():
        f = float(v)
        if np.isnan(f):
            out.append("nan")
        elif np.isinf(f):
            out.append("inf" if f > 0 else "-inf")
        else:
            out.append(float(str(v)))  # str() of a NumPy scalar rounds back to it
    return out


def record(x) -> dict:
    a = np.asarray(x)
    rec = {"dtype": a.dtype.name, "shape": list(a.shape),
           "weak_type": bool(getattr(x, "weak_type", False))}  # fmt: skip
    if a.dtype.kind == "c":
        rec["re"], rec["im"] = _floats(a.real), _floats(a.imag)
    elif a.dtype.kind in "iub":
        rec["values"] = [int(v) for v in a.ravel()]
    else:
        rec["values"] = _floats(a)
    return rec


def main() -> None:
    import jax
    import jax.numpy as jnp
    from cases_fft import CASES, ERROR_CASES, GRAD_CASES, JAXPR_CASES, JVP_CASES
    from jax import lax

    problems: list[str] = []

    def args_of(c):
        return [jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in c.args]

    forward = {}
    for c in CASES:
        fn, _ = c.build(jnp, lax)
        args = args_of(c)
        try:
            eager = record(fn(*args))
            jitted = record(jax.jit(fn)(*args))
        except Exception as e:  # noqa: BLE001
            problems.append(f"{c.name}: raised {type(e).__name__}: {e}")
            continue
        entry = {"eager": eager}
        if jitted != eager:
            entry["jit"] = jitted
        if c.name in JAXPR_CASES:
            entry["jaxpr"] = str(jax.make_jaxpr(fn)(*args))
        forward[c.name] = entry

    grads = {}
    for c in GRAD_CASES:
        loss, _ = c.build(jnp, lax)
        grads[c.name] = {"grad": record(jax.grad(loss)(*args_of(c)))}

    jvps = {}
    for c in JVP_CASES:
        fn, _ = c.build(jnp, lax)
        x, t = args_of(c)
        primal, tangent = jax.jvp(fn, (x,), (t,))
        jvps[c.name] = {"primal": record(primal), "tangent": record(tangent)}

    errors = {}
    for c in ERROR_CASES:
        fn, _ = c.build(jnp, lax)
        try:
            fn(*args_of(c))
        except Exception as e:  # noqa: BLE001 -- the class is the golden result
            errors[c.name] = {"error": type(e).__name__}
        else:
            problems.append(f"{c.name}: no error")

    def section(d: dict) -> str:
        return (
            "{\n"
            + ",\n".join(f"{json.dumps(k)}: {json.dumps(d[k], sort_keys=True)}" for k in sorted(d))
            + "\n}"
        )

    text = "{\n" + f'"jax_version": {json.dumps(jax.__version__)},\n'
    text += ",\n".join(
        f"{json.dumps(name)}: {section(d)}"
        for name, d in [("forward", forward), ("grad", grads), ("jvp", jvps), ("errors", errors)]
    )
    text += "\n}\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT}: {len(forward)} forward, {len(grads)} grad, {len(jvps)} jvp, "
          f"{len(errors)} error cases, {len(text) // 1024} KiB")  # fmt: skip
    if problems:
        print(f"{len(problems)} problems:\n  " + "\n  ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
