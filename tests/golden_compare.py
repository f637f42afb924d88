"""Comparing spmd results with golden records written by ``tests/golden_gen/numpy_gen.py``.

A record is ``{"tree": <structure string>, "leaves": [leaf, ...]}``; an array leaf is
``{"dtype", "weak_type", "shape", "values"}`` (values flattened, non-finite floats as strings),
a Python scalar leaf is ``{"py": <type name>, "value": v}``.
"""

from __future__ import annotations

import numpy as np

from spmd._src import dispatch
from spmd._src.array import Array

# JAX's default test tolerances (jtu.tolerance), used as both rtol and atol.
DEFAULT_TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15}


def to_spmd(a):
    """A case's argument as spmd takes it: NumPy arrays and scalars become spmd arrays (as
    ``jnp.asarray`` would make them); Python scalars stay as they are (weak)."""
    if isinstance(a, (np.ndarray, np.generic)):
        return Array(dispatch.canonical_value(np.asarray(a)))
    return a


def decode_values(values: list, dtype_name: str) -> np.ndarray:
    """Golden values as float64 (floats), int64 (ints) or bool."""
    if dtype_name == "bool":
        return np.array(values, dtype=bool)
    if dtype_name.startswith(("int", "uint")):
        return np.array(values, dtype=np.int64)
    return np.array([float(v) for v in values], dtype=np.float64)


def compare_leaf(expected: dict, actual, tol: dict | None, where: str) -> list[str]:
    """Differences between a golden leaf and an spmd value, as readable messages."""
    if "py" in expected:
        if type(actual).__name__ != expected["py"] or actual != expected["value"]:
            return [f"{where}: expected Python {expected['py']} {expected['value']!r}, "
                    f"got {type(actual).__name__} {actual!r}"]  # fmt: skip
        return []
    if isinstance(actual, (bool, int, float)):
        return [f"{where}: expected an array, got Python {type(actual).__name__} {actual!r}"]
    errs = []
    a = np.asarray(actual)
    weak = getattr(actual, "weak_type", None)
    if a.dtype.name != expected["dtype"]:
        errs.append(f"{where}: dtype {a.dtype.name}, expected {expected['dtype']}")
    if weak != expected["weak_type"]:
        errs.append(f"{where}: weak_type {weak}, expected {expected['weak_type']}")
    if list(a.shape) != expected["shape"]:
        errs.append(f"{where}: shape {tuple(a.shape)}, expected {tuple(expected['shape'])}")
    if errs:
        return errs
    want = decode_values(expected["values"], expected["dtype"])
    got = a.ravel()
    kind = a.dtype.kind
    if kind == "b" or kind in "iu":
        got = got.astype(want.dtype)
        bad = np.flatnonzero(got != want)
    else:
        got = got.astype(np.float64)
        t = {**DEFAULT_TOL, **(tol or {})}.get(a.dtype.name, 1e-6)
        nan_g, nan_w = np.isnan(got), np.isnan(want)
        with np.errstate(invalid="ignore"):
            close = (got == want) | (np.abs(got - want) <= t + t * np.abs(want))
        close = np.where(nan_w | nan_g, nan_w & nan_g, close)
        bad = np.flatnonzero(~close)
    if bad.size:
        i = bad[:5]
        errs.append(
            f"{where}: {bad.size} of {want.size} values differ; at flat indices {i.tolist()}: "
            f"got {got[i].tolist()}, expected {want[i].tolist()}"
        )
    return errs


def compare(expected: dict, tree: str, leaves: list, tol: dict | None) -> list[str]:
    if tree != expected["tree"]:
        return [f"output structure {tree}, expected {expected['tree']}"]
    errs = []
    for i, (e, a) in enumerate(zip(expected["leaves"], leaves, strict=True)):
        errs += compare_leaf(e, a, tol, f"leaf {i}")
    return errs


def check_cases(cases: list, check) -> None:
    """``check(*case)`` for every case, then one assertion naming each case that differed (a
    sweep of thousands of cases runs in groups: as single tests, pytest itself would cost more
    than the cases)."""
    failed = []
    for case in cases:
        try:
            check(*case)
        except AssertionError as e:
            failed.append(f"{case[0]}: {str(e).splitlines()[0] if str(e) else 'assert'}")
    assert not failed, f"{len(failed)} of {len(cases)} cases differ:\n" + "\n".join(failed[:20])


def known_failure_params(cases: list, known: dict) -> list:
    """The cases listed in ``known`` (name -> reason) as strict xfail parameters."""
    import pytest

    return [
        pytest.param(c, id=c[0], marks=pytest.mark.xfail(reason=known[c[0]], strict=True))
        for c in cases
        if c[0] in known
    ]


def assert_raises_like_jax(case, golden: dict, mode: str, jnp, lax) -> None:
    """An error case of a ``cases_*`` family (``case.build(jnp, lax)``): JAX raised
    ``case.error`` (the golden says so), and spmd raises the same builtin class, eagerly or
    under ``jit``, with a message matching ``case.match`` (it names the function and sizes)."""
    import builtins
    import re

    import pytest

    import spmd

    assert golden["error"] == case.error  # what JAX raised
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    if mode == "jit":
        fn = spmd.jit(fn)
    with pytest.raises(getattr(builtins, case.error)) as info:
        fn(*args)
    assert re.search(case.match, str(info.value)), str(info.value)


def assert_vmap_matches_loop(fn, args, in_axes, flatten, name: str, tol: float = 1e-5) -> None:
    """``vmap(fn, in_axes)`` and its ``jit`` equal ``fn`` run on each example and stacked
    (``in_axes``: an int or one entry per argument, None for an unmapped one); ``flatten``
    gives the leaves of an output."""
    import spmd

    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(a.shape[ax] for a, ax in zip(args, axes) if ax is not None)
    loop = [
        flatten(fn(*(a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes))))[1]
        for i in range(size)
    ]
    want = [np.stack([np.asarray(x[i]) for x in loop]) for i in range(len(loop[0]))]
    for mapped in (spmd.vmap(fn, in_axes=in_axes), spmd.jit(spmd.vmap(fn, in_axes=in_axes))):
        got = flatten(mapped(*args))[1]
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=name)
