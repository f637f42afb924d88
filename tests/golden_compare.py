"""Comparing spmd results with golden records written by ``tests/golden_gen/numpy_gen.py``.

A record is ``{"tree": <structure string>, "leaves": [leaf, ...]}``; an array leaf is
``{"dtype", "weak_type", "shape", "values"}`` (values flattened, non-finite floats as strings),
a Python scalar leaf is ``{"py": <type name>, "value": v}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from spmd._src import dispatch
from spmd._src.array import Array

# JAX's default test tolerances (jtu.tolerance), used as both rtol and atol.
DEFAULT_TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15}
DEFAULT_TOL["complex64"] = DEFAULT_TOL["float32"]

_TESTS = Path(__file__).resolve().parent


def load_golden(name: str, key: str = "cases"):
    """``tests/golden/<name>.json``'s ``key`` entry (a family's records by case name)."""
    return json.loads((_TESTS / "golden" / f"{name}.json").read_text())[key]


def load_golden_family(name: str, key: str = "cases"):
    """``(gen, golden)``: the generator module ``tests/golden_gen/<name>_gen.py`` (loaded from
    its file: it is a script run under JAX, not a package module; its programs take the jax
    namespace as an argument) and ``load_golden(name, key)``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"{name}_gen", _TESTS / "golden_gen" / f"{name}_gen.py"
    )
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen, load_golden(name, key)


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


def case_fn_args(case, jnp, lax) -> tuple:
    """The function a ``cases_*`` case runs and its arguments as spmd takes them: the case's
    ``build(jnp, lax)`` where it has one, else ``make(jnp, lax)`` on ``args``."""
    if hasattr(case, "build"):
        fn, args = case.build(jnp, lax)
    else:
        fn, args = case.make(jnp, lax), case.args
    return fn, [to_spmd(a) for a in args]


def case_modes(case) -> tuple:
    """Eager, and ``jit`` too unless the case is eager only (static arguments)."""
    return ("eager", "jit") if getattr(case, "jit", True) else ("eager",)


def mode_params(cases: list, keep, modes: tuple | None = None) -> list:
    """``(case, mode)`` test parameters, ids ``<name>-<mode>``, for each case where
    ``keep(case)``, in each of its ``case_modes`` (or in each of ``modes``)."""
    import pytest

    return [
        pytest.param(c, m, id=f"{c.name}-{m}")
        for c in cases
        if keep(c)
        for m in (case_modes(c) if modes is None else modes)
    ]


def assert_matches_golden(out, golden: dict, what: str, rtol: float | None = None) -> None:
    """``out`` has the structure, dtypes, weak types and shapes of the golden record; integers
    and bools exact; floats within ``rtol`` (relative to each value and to the largest), or by
    default within JAX's test tolerance of their dtype, both relative and absolute."""
    from cases_linalg_more import flatten
    from test_linalg_more import _check_leaf

    tree, leaves = flatten(out)
    assert tree == golden["tree"], f"{what}: structure {tree}, expected {golden['tree']}"
    assert len(leaves) == len(golden["leaves"])
    for i, (g, r) in enumerate(zip(leaves, golden["leaves"])):
        if rtol is None:
            tol = DEFAULT_TOL.get(r["dtype"], 0.0)
            _check_leaf(g, r, f"{what} leaf {i}", tol, tol)
        else:
            _check_leaf(g, r, f"{what} leaf {i}", rtol)


def assert_values_like_jax(case, golden: dict, mode: str, jnp, lax, rtol=None) -> None:
    """A case's result, eagerly or under ``jit``, equals JAX's (the ``jit`` record where JAX's
    differed from its eager one)."""
    import spmd

    fn, args = case_fn_args(case, jnp, lax)
    out = (spmd.jit(fn) if mode == "jit" else fn)(*args)
    assert_matches_golden(out, golden.get(mode, golden["eager"]), "value", rtol)


def assert_grad_like_jax(case, golden: dict, jnp, lax, mode: str = "eager", rtol=None) -> None:
    """The gradient of a case's loss (``case_grad``), eagerly or under ``jit``, equals
    JAX's."""
    assert_matches_golden(case_grad(case, mode, jnp, lax), golden["grad"], "gradient", rtol)


def case_grad(case, mode: str, jnp, lax) -> tuple:
    """The gradient of a case's loss (its ``loss_fn``, else the weighted sum of its outputs)
    with respect to its arguments ``case.grad``, eagerly or under ``jit``."""
    from cases_linalg_more import weighted_sum

    import spmd

    fn, args = case_fn_args(case, jnp, lax)
    loss = case.loss_fn(jnp) if hasattr(case, "loss_fn") else weighted_sum
    g = spmd.grad(lambda *a: loss(jnp, fn(*a)), argnums=case.grad)
    return tuple((spmd.jit(g) if mode == "jit" else g)(*args))


def assert_jaxpr_like_jax(case, golden: dict, jnp, lax) -> None:
    """``str(make_jaxpr(fn)(*args))`` is the text JAX printed."""
    import spmd

    fn, args = case_fn_args(case, jnp, lax)
    assert str(spmd.make_jaxpr(fn)(*args)) == golden["jaxpr"]


def assert_raises_like_jax(case, golden: dict, mode: str, jnp, lax) -> None:
    """An error case of a ``cases_*`` family: JAX raised ``case.error`` (the golden says so),
    and spmd raises the same class (a builtin, or one of ``spmd.errors``), eagerly or under
    ``jit``, with a message matching ``case.match`` (it names the function and sizes)."""
    import builtins
    import re

    import pytest

    import spmd
    import spmd.errors

    assert golden["error"] == case.error  # what JAX raised
    fn, args = case_fn_args(case, jnp, lax)
    if mode == "jit":
        fn = spmd.jit(fn)
    error = getattr(builtins, case.error, None) or getattr(spmd.errors, case.error)
    with pytest.raises(error) as info:
        fn(*args)
    assert re.search(case.match, str(info.value)), str(info.value)


def golden_family_tests(cases, golden, jnp, lax, jaxpr_cases=(), rtol=None, jit_grad=False):
    """The tests every ``cases_*`` golden family runs, as test functions for a test module to
    bind to its own ``test_*`` names (pytest collects them there, with their ids as written
    here): ``values`` and ``errors`` per (case, mode), ``grad`` per case with ``grad`` argnums
    (per (case, mode) with ``jit_grad``), ``jaxpr`` per name of ``jaxpr_cases``, and
    ``every_case_has_a_golden``. ``rtol``: as ``assert_matches_golden``'s."""
    import types

    import pytest

    @pytest.mark.parametrize("case,mode", mode_params(cases, lambda c: not c.error))
    def test_values(case, mode):
        assert_values_like_jax(case, golden[case.name], mode, jnp, lax, rtol)

    if jit_grad:

        @pytest.mark.parametrize("case,mode", mode_params(cases, lambda c: c.grad is not None))
        def test_grad(case, mode):
            assert_grad_like_jax(case, golden[case.name], jnp, lax, mode, rtol)

    else:

        @pytest.mark.parametrize(
            "case", [pytest.param(c, id=c.name) for c in cases if c.grad is not None]
        )
        def test_grad(case):
            assert_grad_like_jax(case, golden[case.name], jnp, lax, "eager", rtol)

    @pytest.mark.parametrize("case,mode", mode_params(cases, lambda c: c.error))
    def test_errors(case, mode):
        assert_raises_like_jax(case, golden[case.name], mode, jnp, lax)

    @pytest.mark.parametrize("name", jaxpr_cases)
    def test_jaxpr(name):
        assert_jaxpr_like_jax(next(c for c in cases if c.name == name), golden[name], jnp, lax)

    def test_every_case_has_a_golden():
        assert sorted(c.name for c in cases) == sorted(golden)

    return types.SimpleNamespace(
        values=test_values,
        grad=test_grad,
        errors=test_errors,
        jaxpr=test_jaxpr,
        every_case_has_a_golden=test_every_case_has_a_golden,
    )


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
