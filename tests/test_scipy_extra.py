"""spmd.scipy.optimize, spmd.scipy.integrate and spmd.scipy.ndimage against results recorded
from JAX 0.10.2 (``tests/golden/scipy_extra.json``, written by
``tests/golden_gen/scipy_extra_gen.py`` from the cases of ``tests/cases_scipy_extra.py``; JAX is
not needed here).

Each case is one call (eager, or its own jit / vmap / grad). Dtypes, weak types, shapes and
integers (``nit``, ``nfev``, ``njev``, ``status``, ``success``) are compared exactly; floats
within JAX's test tolerances, except where a case explains a wider one. Error cases raise JAX's
builtin exception class with a message naming the function and the argument.
"""

from __future__ import annotations

import builtins
import doctest
import json
import re
import types
from pathlib import Path

import numpy as np
import pytest
from cases_scipy_extra import CASES, flatten
from golden_compare import compare_leaf, to_spmd

import spmd
import spmd.numpy as jnp
import spmd.scipy.fft
import spmd.scipy.integrate
import spmd.scipy.ndimage
import spmd.scipy.optimize

GOLDEN = json.loads((Path(__file__).parent / "golden" / "scipy_extra.json").read_text())["cases"]

NS = types.SimpleNamespace(
    jax=spmd,
    jnp=jnp,
    optimize=spmd.scipy.optimize,
    integrate=spmd.scipy.integrate,
    ndimage=spmd.scipy.ndimage,
    fft=spmd.scipy.fft,
)

RESULTS = [c for c in CASES if c.error is None]
ERRORS = [c for c in CASES if c.error is not None]


def _run(case, request):
    if case.x64:
        request.getfixturevalue("x64")
    return case.make(NS)(*[to_spmd(a) for a in case.args])


# BFGS's float32 inverse-Hessian estimate: its last updates divide by y.s, y the difference of
# two gradients close to gtol, which float32 rounding leaves only ~1e-3 accurate; the estimate
# carries that error at the size of its entries (XLA and NumPy round differently).
HESS_INV_TOL32 = 1e-3


def _leaf_names(out, n: int) -> list[str]:
    """Field names of an ``OptimizeResults`` (or a dict of one-array fields), else ``?``."""
    if hasattr(out, "_asdict"):
        return sorted(k for k, v in out._asdict().items() if v is not None)
    return ["?"] * n


def _compare_complex(want: dict, got, tol, where: str) -> list[str]:
    a = np.asarray(got)
    if (a.dtype.name, list(a.shape), got.weak_type) != (
        want["dtype"],
        want["shape"],
        want["weak_type"],
    ):
        return [f"{where}: {a.dtype}{a.shape} weak={got.weak_type}, expected {want}"]
    part_dtype = np.finfo(a.dtype).dtype.name
    errs = []
    for part, vals in ((np.real(a), want["values"]["real"]), (np.imag(a), want["values"]["imag"])):
        rec = {**want, "dtype": part_dtype, "weak_type": None, "values": vals}
        errs += compare_leaf(rec, part, tol, where)
    return errs


@pytest.mark.parametrize("case", RESULTS, ids=lambda c: c.name)
def test_matches_jax(case, request):
    out = _run(case, request)
    tree, leaves = flatten(out)
    golden = GOLDEN[case.name]
    assert tree == golden["tree"]
    errs = []
    for i, (name, want, got) in enumerate(zip(_leaf_names(out, len(leaves)), golden["leaves"],
                                              leaves, strict=True)):  # fmt: skip
        tol = case.tol
        if name == "hess_inv":
            tol = {**(tol or {}), "float32": max(HESS_INV_TOL32, (tol or {}).get("float32", 0))}
        if isinstance(want["values"], dict):  # complex: real and imaginary parts apart
            errs += _compare_complex(want, got, tol, f"leaf {i} ({name})")
        else:
            errs += compare_leaf(want, got, tol, f"leaf {i} ({name})")
    assert not errs, "\n".join(errs)


@pytest.mark.parametrize("case", ERRORS, ids=lambda c: c.name)
def test_errors_like_jax(case, request):
    assert GOLDEN[case.name]["error"] == case.error  # what JAX raised
    with pytest.raises(getattr(builtins, case.error)) as info:
        _run(case, request)
    assert re.search(case.match, str(info.value)), str(info.value)


def test_every_case_recorded():
    assert sorted(GOLDEN) == sorted(c.name for c in CASES)


@pytest.mark.parametrize(
    "name", ["spmd._src.scipy.optimize", "spmd._src.scipy.integrate", "spmd._src.scipy.ndimage"]
)
def test_docstring_examples(name):
    import importlib

    mod = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(mod, extraglobs={"jnp": jnp}, optionflags=flags)
    assert result.failed == 0 and result.attempted > 0
