"""The polynomial functions and ``interp``, ``trapezoid``, ``gradient``, ``ediff1d``, ``cov``,
``corrcoef``, ``unwrap`` and the window functions against results recorded from JAX
(``tests/golden/numpy_polynomial.json``, written by ``tests/golden_gen/numpy_polynomial_gen.py``).

Each case of ``tests/cases_numpy_polynomial.py`` runs eagerly and under ``spmd.jit``; dtype, weak
type and shape must be exact, integers exact, floats within a tolerance by dtype (loosened per
case, with the reason next to the tolerance). Cases with ``grad`` also compare ``spmd.grad`` of a
weighted sum of the outputs. Then: ``vmap`` against a loop over examples, static arguments and
concrete-only options under ``jit``, the error messages, and the docstring examples.
"""

from __future__ import annotations

import builtins
import doctest
import json
from pathlib import Path

import numpy as np
import pytest
from cases_numpy import flatten
from cases_numpy_polynomial import CASES, weighted_loss
from golden_compare import compare_leaf, to_spmd

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.numpy import numeric_extra, polynomial
from spmd.errors import ConcretizationTypeError, TracerBoolConversionError

GOLDEN = json.loads((Path(__file__).parent / "golden" / "numpy_polynomial.json").read_text())[
    "cases"
]


def _compare_complex(expected: dict, actual, tol, where: str) -> list[str]:
    a = np.asarray(actual)
    weak = getattr(actual, "weak_type", None)
    head = [
        f"{where}: {what} {got}, expected {want}"
        for what, got, want in (
            ("dtype", a.dtype.name, expected["dtype"]),
            ("weak_type", weak, expected["weak_type"]),
            ("shape", list(a.shape), expected["shape"]),
        )
        if got != want
    ]
    if head:
        return head
    part_dt = np.finfo(a.dtype).dtype.name
    errs = []
    for name, part in (("real", a.real), ("imag", a.imag)):
        e = {"dtype": part_dt, "weak_type": None, "shape": expected["shape"]}
        e["values"] = expected["values"][name]
        errs += compare_leaf(e, part, tol, f"{where} ({name} part)")
    return errs


def compare(expected: dict, out, tol) -> list[str]:
    tree, leaves = flatten(out)
    if tree != expected["tree"]:
        return [f"output structure {tree}, expected {expected['tree']}"]
    errs = []
    for i, (e, a) in enumerate(zip(expected["leaves"], leaves, strict=True)):
        check = _compare_complex if isinstance(e.get("values"), dict) else compare_leaf
        errs += check(e, a, tol, f"leaf {i}")
    return errs


def _params():
    out = []
    for c in CASES:
        for mode in ("eager", "jit"):
            if mode == "jit" and (not c.jit or c.error):
                continue
            out.append(pytest.param(c, mode, id=f"{c.name}-{mode}"))
    return out


@pytest.mark.parametrize("case,mode", _params())
def test_case(case, mode):
    if case.name not in GOLDEN:
        pytest.fail(f"no golden for {case.name}: rerun tests/golden_gen/numpy_polynomial_gen.py")
    golden = GOLDEN[case.name]
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    if "error" in golden:
        with pytest.raises(getattr(builtins, golden["error"])):
            fn(*args)
        return
    expected = golden["jit"] if mode == "jit" and "jit" in golden else golden["eager"]
    out = spmd.jit(fn)(*args) if mode == "jit" else fn(*args)
    errs = compare(expected, out, case.tol)
    assert not errs, f"{case.name} ({mode}):\n  " + "\n  ".join(errs)


def _grad_params():
    return [
        pytest.param(c, mode, id=f"{c.name}-{mode}")
        for c in CASES
        if c.grad
        for mode in ("eager", "jit")
    ]


@pytest.mark.parametrize("case,mode", _grad_params())
def test_grad(case, mode):
    golden = GOLDEN[case.name]
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    g = spmd.grad(weighted_loss(jnp, fn), argnums=case.grad)
    out = spmd.jit(g)(*args) if mode == "jit" else g(*args)
    errs = compare(golden["grad"], out, case.tol)
    assert not errs, f"{case.name} grad ({mode}):\n  " + "\n  ".join(errs)


def test_goldens_match_cases():
    """Every case has a golden and every golden a case (else rerun the generator)."""
    names = {c.name for c in CASES}
    assert not names - set(GOLDEN), f"cases without goldens: {sorted(names - set(GOLDEN))}"
    assert not set(GOLDEN) - names, f"stale goldens: {sorted(set(GOLDEN) - names)}"
    for c in CASES:
        assert ("grad" in GOLDEN[c.name]) == bool(c.grad and not c.error), c.name


# ---------------------------------------------------------------------------------------------
# vmap against a loop over examples

R = np.array(
    [[0.5, -1.0, 2.0, 0.25], [1.5, 0.5, -0.5, 3.0], [-2.0, 1.0, 1.0, 0.5]], dtype=np.float32
)
XS = np.array([[-1.0, 0.0, 1.5], [2.0, 0.5, -0.5], [0.25, 3.0, 1.0]], dtype=np.float32)
SORTED = np.sort(R, axis=1)

VMAP_CASES = {
    "polyval_p": (lambda p: jnp.polyval(p, jnp.asarray(XS[0])), (R,), 0),
    "polyval_x": (lambda x: jnp.polyval(jnp.asarray(R[0]), x), (XS,), 0),
    "polyval_both": (lambda p, x: jnp.polyval(p, x, unroll=2), (R, XS), 0),
    "polyadd": (lambda a, b: jnp.polyadd(a, b), (R, XS), 0),
    "polysub": (lambda a, b: jnp.polysub(a, b), (R, XS), 0),
    "polymul": (lambda a, b: jnp.polymul(a, b), (R, XS), 0),
    "polyder": (lambda p: jnp.polyder(p, 2), (R,), 0),
    "polyint": (lambda p, k: jnp.polyint(p, 2, k), (R, XS[:, :2]), 0),
    "polydiv": (lambda u, v: jnp.polydiv(u, v), (R, XS[:, :2] + 2), 0),
    "polyfit": (lambda y: jnp.polyfit(jnp.arange(4.0), y, 2), (R,), 0),
    "polyfit_full": (lambda y: jnp.polyfit(jnp.arange(4.0), y, 1, full=True), (R,), 0),
    "poly": (lambda r: jnp.poly(r), (R,), 0),
    "poly_matrix": (lambda m: jnp.poly(m), (R[:, :4].reshape(3, 2, 2),), 0),
    "vander": (lambda x: jnp.vander(x, 3), (XS,), 0),
    "interp_x": (lambda x: jnp.interp(x, jnp.asarray(SORTED[0]), jnp.asarray(R[1])), (XS,), 0),
    "interp_all": (lambda x, xp, fp: jnp.interp(x, xp, fp, left=-9.0), (XS, SORTED, R), 0),
    "interp_period": (lambda x, xp, fp: jnp.interp(x, xp, fp, period=2.5), (XS, SORTED, R), 0),
    "trapezoid": (lambda y, x: jnp.trapezoid(y, x[:3].cumsum()), (R[:, :3], XS), 0),
    "trapezoid_axis1": (lambda y: jnp.trapezoid(y, dx=0.5), (R,), 1),
    "gradient": (lambda f, x: jnp.gradient(f, x), (R[:, :3], XS.cumsum(1) ** 2 + 0.5), 0),
    "gradient_2d": (lambda f: jnp.gradient(f, 2.0), (np.stack([R, R * 2]),), 0),
    "ediff1d": (lambda a: jnp.ediff1d(a, to_begin=1.0), (R,), 0),
    "cov": (lambda m: jnp.cov(m), (np.stack([R, R[::-1] * 2]),), 0),
    "cov_weights": (lambda m, a: jnp.cov(m, aweights=a), (np.stack([R, R[::-1]], 1), R**2), 0),
    "corrcoef": (lambda m: jnp.corrcoef(m), (np.stack([R, R[::-1] * 2 + 1]),), 0),
    "unwrap": (lambda p: jnp.unwrap(p * 4), (R,), 0),
    "unwrap_period": (lambda p, per: jnp.unwrap(p, period=per), (R, XS[:, 0] + 3), 0),
    "kaiser": (lambda b: jnp.kaiser(7, b), (XS[0],), 0),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_loop(name):
    fn, args, axis = VMAP_CASES[name]
    batched = spmd.vmap(fn, in_axes=axis)(*[jnp.asarray(a) for a in args])
    n = args[0].shape[axis]
    loop = [fn(*[jnp.asarray(np.take(a, i, axis=axis)) for a in args]) for i in range(n)]
    b_tree, b_leaves = flatten(batched)
    for i, out in enumerate(loop):
        tree, leaves = flatten(out)
        assert tree == b_tree
        for got, want in zip(b_leaves, leaves):
            got_i = np.asarray(got)[i]
            assert got.dtype == want.dtype and got_i.shape == want.shape
            np.testing.assert_allclose(got_i, np.asarray(want), rtol=2e-6, atol=2e-6)


# ---------------------------------------------------------------------------------------------
# Static and concrete-only arguments under jit

STATIC = [
    ("polyval", lambda p, s: jnp.polyval(p, p, unroll=s), 2, "'unroll'"),
    ("polyder", lambda p, s: jnp.polyder(p, s), 1, "'m'"),
    ("polyint", lambda p, s: jnp.polyint(p, s), 1, "'m'"),
    ("polyfit", lambda p, s: jnp.polyfit(p, p, s), 1, "'deg'"),
    ("polyfit", lambda p, s: jnp.polyfit(p, p, 1, rcond=s), 0.1, "'rcond'"),
    ("vander", lambda p, s: jnp.vander(p, s), 2, "'N'"),
    ("trapezoid", lambda p, s: jnp.trapezoid(p, axis=s), 0, "'axis'"),
    ("gradient", lambda p, s: jnp.gradient(p, axis=s), 0, "'axis'"),
    ("unwrap", lambda p, s: jnp.unwrap(p, axis=s), 0, "'axis'"),
    ("cov", lambda p, s: jnp.cov(p, ddof=s), 1, "'ddof'"),
    ("cov", lambda p, s: jnp.cov(p, rowvar=s), True, "'rowvar'"),
    ("corrcoef", lambda p, s: jnp.corrcoef(p, rowvar=s), True, "'rowvar'"),
]


@pytest.mark.parametrize("fn_name,fn,value,argname", STATIC, ids=[f"{s[0]}-{s[3]}" for s in STATIC])
def test_static_argument_traced(fn_name, fn, value, argname):
    p = jnp.array([1.0, 2.0, 4.0, 7.0])
    fn(p, value)  # concrete: fine
    with pytest.raises(ValueError, match=f"{fn_name}: argument {argname} is static"):
        spmd.jit(fn)(p, value)
    # Marked static, as JAX's own jit makes it, the same call traces.
    spmd.jit(fn, static_argnums=1)(p, value)


def test_trim_leading_zeros_needs_concrete_values():
    u = jnp.array([0.0, 1.0, 2.0])
    assert jnp.polymul(u, u, trim_leading_zeros=True).shape == (3,)
    with pytest.raises(TracerBoolConversionError, match="polymul with trim_leading_zeros"):
        spmd.jit(lambda a: jnp.polymul(a, a, trim_leading_zeros=True))(u)
    with pytest.raises(TracerBoolConversionError, match="polydiv with trim_leading_zeros"):
        spmd.jit(lambda a: jnp.polydiv(a, a[1:], trim_leading_zeros=True))(u)
    # Without trimming the shapes are static and jit is fine.
    q, r = spmd.jit(lambda a: jnp.polydiv(a, a[1:]))(u)
    assert q.shape == (2,) and r.shape == (3,)


@pytest.mark.parametrize("window", ["bartlett", "blackman", "hamming", "hanning", "kaiser"])
def test_window_length_must_be_concrete(window):
    args = (2.0,) if window == "kaiser" else ()
    f = getattr(jnp, window)
    assert f(4, *args).shape == (4,)
    with pytest.raises(ConcretizationTypeError, match=f"M argument of jnp.{window}"):
        spmd.jit(lambda m: f(m, *args))(4)
    assert spmd.jit(f, static_argnums=0)(4, *args).shape == (4,)


# ---------------------------------------------------------------------------------------------
# Error messages name the function, the argument and the sizes

F3 = jnp.array([1.0, 2.0, 3.0])
ERRORS = [
    (lambda: jnp.polyval(jnp.float32(1), F3), IndexError, r"polyval: p .*shape \(\)"),
    (lambda: jnp.polyadd(jnp.zeros(0), F3), ValueError, r"polyadd: .*shape \(0,\).*\(3,\)"),
    (lambda: jnp.polyadd(jnp.ones((2, 2)), F3), ValueError, r"polyadd: .*\(2, 2\) and \(3,\)"),
    (lambda: jnp.polyadd(jnp.array([True]), jnp.array([True])), TypeError, "polyadd.*bool"),
    (lambda: jnp.polysub(jnp.array([True]), jnp.array([True])), TypeError, "polysub.*bool"),
    (lambda: jnp.polymul(2.0, F3), TypeError, r"polymul: a1 .*shape \(\)"),
    (lambda: jnp.polymul(jnp.ones((2, 2)), F3), ValueError, r"polymul: .*\(2, 2\) and \(3,\)"),
    (lambda: jnp.polyder(F3, -1), ValueError, "polyder got m=-1"),
    (lambda: jnp.polyder(F3, 1.5), TypeError, "polyder: m must be an integer"),
    (lambda: jnp.polyint(F3, 2, jnp.ones(3)), ValueError, r"polyint got k of shape \(3,\)"),
    (lambda: jnp.polydiv(F3, jnp.zeros(0)), IndexError, r"polydiv: the divisor v .*\(0,\)"),
    (lambda: jnp.polyfit(F3, F3[:2], 1), TypeError, r"polyfit got x of shape \(3,\) and y"),
    (lambda: jnp.polyfit(jnp.arange(3), F3, 1), ValueError, "polyfit: data type int32 of x"),
    (lambda: jnp.polyfit(F3, F3, 1, w=jnp.ones(2)), TypeError, r"polyfit got w of shape \(2,\)"),
    (lambda: jnp.polyfit(F3, F3, 2, cov=True), ValueError, "polyfit got 3 points for order 3"),
    (lambda: jnp.polyfit(*[F3.astype(jnp.float16)] * 2, 1), NotImplementedError, "float16"),
    (lambda: jnp.poly(jnp.ones((2, 3))), ValueError, r"poly got shape \(2, 3\)"),
    (lambda: jnp.vander(jnp.ones((2, 2))), ValueError, r"vander got shape \(2, 2\)"),
    (lambda: jnp.vander(F3, -2), ValueError, "vander got N=-2"),
    (lambda: jnp.interp(F3, F3, F3[:2]), ValueError, r"interp got xp of shape \(3,\) and fp"),
    (lambda: jnp.interp(F3, F3, F3, left="x"), ValueError, "`left` is 'extrapolate'.*'x'"),
    (lambda: jnp.interp(F3, jnp.zeros(0), jnp.zeros(0)), TypeError, "interp: xp and fp"),
    (lambda: jnp.interp(F3, F3, F3, period=F3), ValueError, "period must be a scalar"),
    (lambda: jnp.trapezoid(jnp.zeros(0)), IndexError, r"trapezoid: .*shape \(0,\)"),
    (lambda: jnp.trapezoid(jnp.ones((3, 4)), F3), ValueError, r"trapezoid: .*\(3,\)"),
    (lambda: jnp.gradient(F3[:1]), ValueError, r"gradient got shape \(1,\)"),
    (lambda: jnp.gradient(F3, F3[:2]), ValueError, "gradient got 2 coordinates .* size 3"),
    (lambda: jnp.gradient(F3, 1.0, 2.0), TypeError, "spacing arguments 2 for axis=None"),
    (lambda: jnp.gradient(F3, edge_order=2), NotImplementedError, "edge_order"),
    (lambda: jnp.ediff1d(jnp.array([True])), TypeError, "ediff1d.*bool"),
    (lambda: jnp.unwrap(F3, axis=1), IndexError, r"unwrap: axis 1 .*shape \(3,\)"),
    (lambda: jnp.unwrap(jnp.ones(2, jnp.complex64)), ValueError, "unwrap .*complex64"),
    (lambda: jnp.cov(jnp.ones((2, 2, 2))), ValueError, r"m has more .*cov got shape \(2, 2, 2\)"),
    (lambda: jnp.cov(jnp.ones((2, 3)), F3[:2]), ValueError, "cov: m and y .* 3 and 2"),
    (lambda: jnp.cov(F3, fweights=F3), TypeError, "fweights must be integer .*float32"),
    (lambda: jnp.cov(F3, aweights=F3[:2]), RuntimeError, r"3 observations and aweights .*\(2,"),
    (lambda: jnp.cov(F3, dtype=jnp.int32), ValueError, "cov: dtype must be .*int32"),
    (lambda: jnp.hanning(-3), TypeError, "hanning: M must be nonnegative, got M=-3"),
    (lambda: jnp.kaiser(4, jnp.complex64(1)), ValueError, "kaiser's beta"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_error_messages(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# Docstring examples


@pytest.mark.parametrize("module", [polynomial, numeric_extra], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(module, globs={"jnp": jnp})
    assert sum(len(t.examples) for t in tests) >= len(module.__all__)
    for t in tests:
        runner.run(t)
    assert runner.failures == 0, f"{runner.failures} docstring examples of {module.__name__} fail"
    for name in module.__all__:
        assert ">>>" in (getattr(module, name).__doc__ or ""), f"{name} has no example"


def test_roots_against_numpy_and_jax_semantics():
    # Values against NumPy's roots (order aside); the zero handling and the jit error are
    # JAX 0.10's: trailing zero coefficients are roots at 0, leading ones are dropped, and
    # without strip_zeros a leading zero gives NaN roots.
    from spmd.errors import ConcretizationTypeError

    for p in ([1.0, -3.0, 2.0], [2.0, 0.0, 1.0], [1, 2, 3], [1.0, 0.5, -2.0, 4.0, 1.0]):
        got = np.sort_complex(np.asarray(jnp.roots(jnp.array(p))))
        np.testing.assert_allclose(got, np.sort_complex(np.roots(p)), rtol=1e-5, atol=1e-6)
        assert got.dtype == np.complex64
    got = np.sort_complex(np.asarray(jnp.roots(jnp.array([0.0, 0.0, 1.0, -3.0, 2.0, 0.0, 0.0]))))
    np.testing.assert_allclose(got, [0, 0, 1, 2], atol=1e-6)
    assert jnp.roots(jnp.array([5.0])).shape == (0,)
    assert jnp.roots(jnp.array([0.0, 0.0])).shape == (0,)
    assert np.isnan(np.asarray(jnp.roots(jnp.array([0.0, 1.0, 2.0]), strip_zeros=False))).all()
    jitted = spmd.jit(lambda p: jnp.roots(p, strip_zeros=False))(jnp.array([1.0, -3.0, 2.0]))
    np.testing.assert_allclose(np.sort_complex(np.asarray(jitted)), [1, 2], rtol=1e-6)
    with pytest.raises(ConcretizationTypeError, match="roots: strip_zeros"):
        spmd.jit(jnp.roots)(jnp.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="rank-1"):
        jnp.roots(jnp.ones((2, 2)))
