"""The ``jax.numpy`` functions of ``spmd/_src/numpy/{functional,setops,misc,histograms,einsum_path,
io_printing,type_names}.py`` against JAX 0.10.

The cases live in ``tests/golden_gen/numpy_misc_gen.py``, which recorded JAX's results into
``tests/golden/numpy_misc.json``: each case runs eagerly and under ``spmd.jit`` (dtype, weak type
and shape exact, integers exact, floats within JAX's tolerances), gradients where recorded, and
error cases must raise JAX's exception class. Then ``vmap`` against a loop over examples, what
has no JAX golden (files, printing, type names, documented deviations) and the docstrings.
"""

from __future__ import annotations

import builtins
import doctest
import importlib.util
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from cases_numpy import flatten
from golden_compare import compare_leaf, to_spmd

import spmd
import spmd.numpy as jnp
from spmd._src.array import Array
from spmd._src.numpy import (
    einsum_path,
    functional,
    histograms,
    io_printing,
    misc,
    setops,
    type_names,
)
from spmd.errors import ConcretizationTypeError

_HERE = Path(__file__).parent
sys.path.insert(0, str(_HERE / "golden_gen"))
_spec = importlib.util.spec_from_file_location(
    "numpy_misc_gen", _HERE / "golden_gen" / "numpy_misc_gen.py"
)
gen = importlib.util.module_from_spec(_spec)
sys.modules["numpy_misc_gen"] = gen  # dataclasses look their module up while defining
_spec.loader.exec_module(gen)

GOLDEN = json.loads((_HERE / "golden" / "numpy_misc.json").read_text())["cases"]
CASES = {c.name: c for c in gen.CASES}

# Cases whose spmd result is known to differ from JAX's: "name/mode" -> reason (strict xfails).
KNOWN_FAILURES: dict[str, str] = {}


def _error_class(name: str) -> type:
    if name == "ConcretizationTypeError":
        return ConcretizationTypeError
    return getattr(builtins, name)


def _compare(expected: dict, out) -> list[str]:
    tree, leaves = flatten(out)
    if tree != expected["tree"]:
        return [f"output structure {tree}, expected {expected['tree']}"]
    errs = []
    for i, (e, a) in enumerate(zip(expected["leaves"], leaves, strict=True)):
        if isinstance(e.get("values"), dict):
            # A complex leaf: dtype, weak type and shape, then each part as a float leaf.
            arr = np.asarray(a)
            if arr.dtype.name != e["dtype"] or list(arr.shape) != e["shape"]:
                errs.append(f"leaf {i}: {arr.dtype}{arr.shape}, expected {e['dtype']}{e['shape']}")
                continue
            if getattr(a, "weak_type", None) != e["weak_type"]:
                errs.append(f"leaf {i}: weak_type {getattr(a, 'weak_type', None)}")
            part_dt = np.float32 if arr.dtype == np.complex64 else np.float64
            for part in ("real", "imag"):
                want = {**e, "dtype": np.dtype(part_dt).name, "values": e["values"][part]}
                got = Array(getattr(arr, part).astype(part_dt), weak_type=e["weak_type"])
                errs += compare_leaf(want, got, None, f"leaf {i} ({part})")
        else:
            errs += compare_leaf(e, a, None, f"leaf {i}")
    return errs


def _params():
    out = []
    for c in gen.CASES:
        modes = ["eager"]
        if not c.error and (c.jit or c.jit_error):
            modes.append("jit")
        if c.grad:
            modes += ["grad", "grad_jit"] if c.jit else ["grad"]
        for mode in modes:
            reason = KNOWN_FAILURES.get(f"{c.name}/{mode}")
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            out.append(pytest.param(c.name, mode, id=f"{c.name}-{mode}", marks=marks))
    return out


@pytest.mark.parametrize("name,mode", _params())
def test_golden(name, mode):
    case, golden = CASES[name], GOLDEN[name]
    fn = case.make(jnp)
    args = [to_spmd(a) for a in case.args]
    if "error" in golden:
        with pytest.raises(_error_class(golden["error"])):
            fn(*args)
        return
    if mode == "jit" and "jit_error" in golden:
        with pytest.raises(_error_class(golden["jit_error"])):
            spmd.jit(fn)(*args)
        return
    if mode == "eager":
        out, expected = fn(*args), golden["eager"]
    elif mode == "jit":
        out, expected = spmd.jit(fn)(*args), golden.get("jit", golden["eager"])
    else:
        g = spmd.grad(gen.weighted_loss(jnp, fn))
        out = (spmd.jit(g) if mode == "grad_jit" else g)(*args)
        expected = golden["grad"]
    errs = _compare(expected, out)
    assert not errs, f"{name} ({mode}):\n  " + "\n  ".join(errs)


def test_goldens_match_cases():
    """Every case has a golden and every golden a case (else rerun the generator)."""
    names = set(CASES)
    assert not names - set(GOLDEN), f"cases without goldens: {sorted(names - set(GOLDEN))}"
    assert not set(GOLDEN) - names, f"stale goldens: {sorted(set(GOLDEN) - names)}"
    stale = [k for k in KNOWN_FAILURES if k.split("/")[0] not in names]
    assert not stale, f"KNOWN_FAILURES names no case: {stale}"


# ---------------------------------------------------------------------------------------------
# vmap against a loop over examples


def _check_vmap(fn, *args, in_axes=0):
    """``vmap(fn)`` over the leading axis of the batched arguments equals stacking ``fn`` on
    each example: dtype, weak type, shape and values."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    n = next(np.shape(a)[0] for a, ax in zip(args, axes) if ax is not None)
    batched = spmd.vmap(fn, in_axes=in_axes)(*args)
    per = [fn(*[a if ax is None else a[i] for a, ax in zip(args, axes)]) for i in range(n)]
    tree, got = flatten(batched)
    for k, leaf in enumerate(got):
        rows = [flatten(p)[1][k] for p in per]
        want = np.stack([np.asarray(r) for r in rows])
        assert leaf.dtype == rows[0].dtype and leaf.weak_type == rows[0].weak_type, (k, leaf)
        assert leaf.shape == want.shape, (k, leaf.shape, want.shape)
        np.testing.assert_allclose(np.asarray(leaf), want, rtol=1e-6, atol=1e-6)


X24 = jnp.asarray(gen.F24)
X6 = jnp.asarray(gen.F6)
AB = jnp.asarray(np.array([[5, 1, 3, 3], [7, 1, 2, 2], [0, 0, 0, 9]], np.int32))
BB = jnp.asarray(np.array([[3, 4, 1], [2, 8, 1], [9, 9, 0]], np.int32))


def test_vmap_vectorize_and_functional():
    vdot = jnp.vectorize(lambda a, b: jnp.dot(a, b), signature="(n),(n)->()")
    _check_vmap(vdot, X24, X24)
    _check_vmap(jnp.vectorize(lambda x, y: x * y + 1), X6, jnp.asarray(gen.F3), in_axes=(0, None))
    _check_vmap(lambda x: jnp.apply_along_axis(lambda v: v * v[0], 1, x), X24)
    _check_vmap(lambda x: jnp.apply_over_axes(jnp.sum, x, [0]), X24)
    pw = lambda x: jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v**2, 0.5])
    _check_vmap(pw, X24)


def test_vmap_setops():
    _check_vmap(jnp.isin, AB, BB)
    _check_vmap(lambda a, b: jnp.isin(a, b, method="sort", invert=True), AB, BB)
    _check_vmap(lambda a, b: jnp.setdiff1d(a, b, size=4, fill_value=-1), AB, BB)
    _check_vmap(lambda a, b: jnp.union1d(a, b, size=7), AB, BB)
    _check_vmap(lambda a, b: jnp.intersect1d(a, b, size=3, return_indices=True), AB, BB)
    _check_vmap(lambda a, b: jnp.setxor1d(a, b, size=5), AB, BB)
    _check_vmap(lambda a: jnp.setdiff1d(a, BB[0], size=4), AB)


def test_vmap_misc():
    _check_vmap(lambda x: jnp.block([[x, x], [x, 2 * x]]), X24)
    _check_vmap(lambda x: jnp.unstack(x, axis=1), X24)
    _check_vmap(lambda x: jnp.rollaxis(x, 1), X24)
    _check_vmap(lambda x: jnp.r_[x[0], 0:2, x[1]], X6)
    _check_vmap(lambda v: jnp.fill_diagonal(jnp.zeros((3, 3)), v, inplace=False), X6)
    mask = jnp.asarray(gen.PM[0])
    _check_vmap(lambda x, v: jnp.place(x, mask, v, inplace=False), X6, X6[:, :2])
    _check_vmap(jnp.sort_complex, X6)
    _check_vmap(jnp.iscomplex, X6)
    bits = jnp.asarray((np.arange(33) % 3 == 0).reshape(3, 11).astype(np.int32))
    _check_vmap(jnp.packbits, bits)
    _check_vmap(lambda b: jnp.unpackbits(b, count=9), jnp.packbits(bits, axis=1))
    _check_vmap(jnp.bitwise_count, AB)
    hs = jnp.asarray(np.stack([gen.HS, gen.HS[::-1] * 2]))
    _check_vmap(lambda s: jnp.histogramdd(s, bins=2, range=[(0, 6), (0, 4)])[0], hs)
    _check_vmap(lambda x, y: jnp.histogram2d(x, y, bins=[2, 3])[0], hs[:, :, 0], hs[:, :, 1])
    muladd = jnp.ufunc(lambda x, y: x * y + 1, 2, 1)
    _check_vmap(muladd.reduce, X6)
    _check_vmap(muladd.accumulate, X6)


# ---------------------------------------------------------------------------------------------
# Reading and writing files


def test_save_load_roundtrip(tmp_path):
    x = jnp.arange(6.0).reshape(2, 3)
    path = tmp_path / "x.npy"
    jnp.save(path, x)
    y = jnp.load(path)
    assert isinstance(y, Array) and y.dtype == np.float32 and not y.weak_type
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    # bfloat16 is stored as 2-byte void by NumPy and comes back as bfloat16.
    jnp.save(tmp_path / "b.npy", jnp.array([1.5, -2.0], jnp.bfloat16))
    b = jnp.load(tmp_path / "b.npy")
    assert b.dtype == jnp.bfloat16 and np.asarray(b).astype(np.float32).tolist() == [1.5, -2.0]
    # float64 data is canonicalized (x64 is off), as jnp.asarray does.
    np.save(tmp_path / "d.npy", np.arange(3.0))
    assert jnp.load(tmp_path / "d.npy").dtype == np.float32
    # Data without a JAX dtype stays a NumPy array; .npz archives are NumPy's.
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    assert isinstance(jnp.load(tmp_path / "s.npy"), np.ndarray)
    jnp.savez(tmp_path / "z.npz", x=x, y=jnp.arange(3))
    with jnp.load(tmp_path / "z.npz") as z:
        np.testing.assert_array_equal(z["y"], [0, 1, 2])


def test_save_to_file_object():
    f = io.BytesIO()
    jnp.save(f, jnp.array([1, 2, 3], jnp.int8))
    f.seek(0)
    out = jnp.load(f)
    assert out.dtype == np.int8 and out.tolist() == [1, 2, 3]


def test_io_functions_are_numpys():
    # As in JAX: save/savez/array_repr/array_str are NumPy's own functions.
    assert jnp.save is np.save and jnp.savez is np.savez
    assert jnp.array_repr is np.array_repr and jnp.array_str is np.array_str


def test_fromfile_fromiter_refuse_with_advice():
    for fn, alt in ((jnp.fromfile, "np.fromfile"), (jnp.fromiter, "np.fromiter")):
        with pytest.raises(NotImplementedError, match=f"jnp.asarray\\({alt}"):
            fn("x")


# ---------------------------------------------------------------------------------------------
# Printing and type names


def test_printoptions():
    before = jnp.get_printoptions()
    with jnp.printoptions(precision=2, suppress=True):
        assert jnp.get_printoptions()["precision"] == 2
        assert repr(jnp.array([1.23456, 2.0])) == "Array([1.23, 2.  ], dtype=float32)"
    assert jnp.get_printoptions() == before
    try:
        jnp.set_printoptions(precision=3)
        assert str(jnp.array([1 / 3])) == "[0.333]"
    finally:
        np.set_printoptions(**before)
    assert jnp.get_printoptions() == before


def test_array_repr_str_iterable():
    assert jnp.array_repr(jnp.arange(3)) == "Array([0, 1, 2], dtype=int32)"
    assert jnp.array_str(jnp.arange(3.0)) == "[0. 1. 2.]"
    assert jnp.iterable(jnp.arange(3)) and not jnp.iterable(jnp.array(3))
    assert jnp.iterable([1]) and not jnp.iterable(3) and not jnp.iterable(np.float32(1))
    assert spmd.jit(lambda x: jnp.array(jnp.iterable(x)))(jnp.array(1.0)).item() is False


def test_type_names():
    # JAX re-exports NumPy's classes for these.
    assert jnp.object_ is np.object_ and jnp.character is np.character
    assert jnp.flexible is np.flexible
    assert jnp.ComplexWarning is np.exceptions.ComplexWarning
    assert issubclass(jnp.ComplexWarning, RuntimeWarning)
    assert jnp.issubdtype(np.str_, jnp.character) and jnp.issubdtype(np.void, jnp.flexible)
    u = jnp.ufunc(lambda x, y: x * y + 1, 2, 1, name="muladd")
    assert isinstance(u, jnp.ufunc) and repr(u) == "<jnp.ufunc 'muladd'>"
    assert (u.nin, u.nout, u.nargs, u.identity, u.__name__) == (2, 1, 2, None, "muladd")


def test_ufunc_overrides_and_errors():
    calls = []
    u = jnp.ufunc(
        lambda x, y: x + y, 2, 1, identity=0,
        call=lambda x, y: calls.append("call") or jnp.add(x, y),
        reduce=lambda a, axis, dtype, keepdims: calls.append("reduce") or jnp.sum(a, axis),
    )  # fmt: skip
    assert u(jnp.arange(3), 1).tolist() == [1, 2, 3]
    assert int(u.reduce(jnp.arange(4))) == 6
    assert calls == ["call", "reduce"]
    with pytest.raises(NotImplementedError, match="out"):
        u(1, 2, out=jnp.zeros(()))
    with pytest.raises(NotImplementedError, match="inplace=False"):
        u.at(jnp.arange(3), jnp.array([0]), 1)
    with pytest.raises(TypeError, match="value argument b"):
        u.at(jnp.arange(3), jnp.array([0]), inplace=False)
    with pytest.raises(ConcretizationTypeError, match="reduceat"):
        spmd.jit(lambda i: u.reduceat(jnp.arange(4), i))(jnp.array([0, 2]))
    with pytest.raises(IndexError, match="out of bounds"):
        u.reduceat(jnp.arange(4), jnp.array([0, 7]))


# ---------------------------------------------------------------------------------------------
# Deliberate deviations from JAX 0.10 (documented in the docstrings)


def test_vectorize_keyword_arguments_broadcast():
    # JAX 0.10 silently drops keyword arguments that are not excluded; they broadcast here,
    # as in NumPy.
    f = jnp.vectorize(lambda x, p=1: x * p)
    out = f(jnp.arange(3.0), p=jnp.arange(3.0)[:, None])
    assert out.shape == (3, 3) and out.tolist()[2] == [0.0, 2.0, 4.0]
    g = jnp.vectorize(lambda a, p=1: a * p, signature="(n)->(n)")
    with pytest.raises(TypeError, match="excluded"):
        g(jnp.ones(3), p=2.0)


def test_fromfunction_keyword_arguments_pass_through():
    # JAX 0.10 maps keyword arguments along axis 0 (and fails on scalars); NumPy passes them on.
    out = jnp.fromfunction(lambda i, k=1: i * k, (3,), k=5)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 5.0, 10.0]


def test_intersect1d_empty_input_with_size():
    # JAX 0.10 fails inside a gather here; the result is all fill values.
    v, i1, i2 = jnp.intersect1d(jnp.zeros(0, jnp.int32), jnp.array([3, 4]), True, True, size=2)
    assert v.tolist() == [0, 0] and i1.tolist() == [0, 0] and i2.tolist() == [2, 2]


def test_piecewise_accepts_python_results():
    # JAX 0.10 calls .astype on each result, so a function returning a Python number fails.
    x = jnp.array([-1.0, 1.0])
    assert jnp.piecewise(x, [x < 0], [lambda v: 1, lambda v: 2.5]).tolist() == [1.0, 2.5]


def test_einsum_path_info():
    a, b, c = jnp.ones((2, 3)), jnp.ones((3, 4)), jnp.ones((4, 5))
    path, info = jnp.einsum_path("ij,jk,kl->il", a, b, c)
    assert path == [(0, 1), (0, 1)] and info.path == path
    assert (info.naive_cost, info.opt_cost, info.largest_intermediate) == (360, 128, 10)
    assert info.speedup == pytest.approx(2.8125)
    text = str(info)
    assert "Complete contraction:  ij,jk,kl->il" in text and "jk,ij->ki" in text
    # NumPy's path format (with its marker) is accepted too.
    assert jnp.einsum_path("ij,jk", a, b, optimize=["einsum_path", (0, 1)])[0] == [(0, 1)]
    with pytest.raises(ValueError, match="invalid contraction"):
        jnp.einsum_path("ij,jk", a, b, optimize=[(0, 2)])
    with pytest.raises(ValueError, match="uncontracted"):
        jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize=[(0, 1)])
    with pytest.raises(ValueError, match="optimize"):
        jnp.einsum_path("ij,jk", a, b, optimize="fastest")


# ---------------------------------------------------------------------------------------------
# Error messages name the function, the argument and the sizes


@pytest.mark.parametrize(
    "fn,exc,words",
    [
        (lambda: jnp.vectorize(jnp.dot, signature="(n,m),(m)->(n)")(X24, X6[0]), ValueError,
         ["core dimension 'm'", "3 here, 4 earlier", "vectorize"]),
        (lambda: jnp.apply_over_axes(jnp.sum, X24, 1), TypeError, ["apply_over_axes", "axes"]),
        (lambda: jnp.apply_over_axes(lambda a, ax: a.sum(), X24, [0]), ValueError,
         ["apply_over_axes", "(2, 3, 4)", "()"]),
        (lambda: jnp.piecewise(X6[0], [X6[0] < 0], [1, 2, 3]), ValueError,
         ["piecewise", "1 condition", "got 3"]),
        (lambda: jnp.piecewise(X6[0], [jnp.array([True, False])], [1.0]), ValueError,
         ["piecewise", "condlist[0]", "(2,)", "(3,)"]),
        (lambda: jnp.block([[X6], X6]), ValueError, ["block", "depths"]),
        (lambda: jnp.block((1, 2)), ValueError, ["block", "tuple"]),
        (lambda: jnp.r_["x", 1], ValueError, ["r_", "directive 'x'"]),
        (lambda: jnp.mgrid[3], TypeError, ["mgrid", "slices"]),
        (lambda: jnp.rollaxis(X24, 1, 5), ValueError, ["rollaxis", "start=5", "-3<=start<=3"]),
        (lambda: jnp.unstack(jnp.array(1.0)), ValueError, ["unstack", "dimension 0"]),
        (lambda: jnp.fill_diagonal(jnp.zeros((2, 3, 2)), 1.0, inplace=False), ValueError,
         ["fill_diagonal", "(2, 3, 2)"]),
        (lambda: jnp.fill_diagonal(jnp.zeros((2, 2)), jnp.zeros(0), inplace=False),
         ZeroDivisionError, ["fill_diagonal", "empty"]),
        (lambda: jnp.place(X6, X6[0] > 0, 1.0, inplace=False), ValueError,
         ["place", "(2, 3)", "(3,)"]),
        (lambda: jnp.place(X6, X6 > 0, 1.0), ValueError, ["place", "inplace=False"]),
        (lambda: jnp.setdiff1d(AB[0], BB[0], size=-2), TypeError, ["setdiff1d", "size", "-2"]),
        (lambda: spmd.jit(jnp.union1d)(AB[0], BB[0]), ConcretizationTypeError,
         ["union1d", "ar1", "size="]),
        (lambda: jnp.union1d(jnp.zeros(0), jnp.zeros(0), size=2), ValueError,
         ["union1d", "empty", "fill_value"]),
        (lambda: jnp.setdiff1d(AB[0], BB[0], size=3, fill_value=jnp.zeros(2)), ValueError,
         ["setdiff1d", "fill_value", "(2,)"]),
        (lambda: jnp.isin(AB, BB, method="fast"), ValueError, ["isin", "'fast'"]),
        (lambda: spmd.jit(jnp.trim_zeros)(AB[0]), ConcretizationTypeError, ["trim_zeros", "filt"]),
        (lambda: jnp.packbits(X6), TypeError, ["packbits", "float32"]),
        (lambda: jnp.packbits(AB, axis=2), IndexError, ["packbits", "axis 2", "dimension 2"]),
        (lambda: jnp.unpackbits(AB), TypeError, ["unpackbits", "uint8", "int32"]),
        (lambda: jnp.bitwise_count(X6), TypeError, ["bitwise_count", "float32"]),
        (lambda: jnp.sort_complex(1.0), ValueError, ["sort_complex", "dimension 0"]),
        (lambda: jnp.histogramdd(jnp.asarray(gen.HS), 2, weights=jnp.ones(5)), ValueError,
         ["histogramdd", "(5,)", "6 samples"]),
        (lambda: jnp.histogramdd(jnp.asarray(gen.HS), bins=[2]), ValueError,
         ["histogramdd", "1 bin", "2 dimensions"]),
        (lambda: jnp.histogram2d(X6[0], X6[0, :2]), TypeError, ["histogram2d", "(3,)", "(2,)"]),
        (lambda: jnp.histogram2d(X6, X6), ValueError, ["histogram2d", "1-D", "(2, 3)"]),
        (lambda: jnp.ufunc(jnp.add, 2, 1).reduce(jnp.zeros(0)), ValueError,
         ["zero-size", "identity"]),
    ],
)  # fmt: skip
def test_error_messages(fn, exc, words):
    with pytest.raises(exc) as info:
        fn()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


# ---------------------------------------------------------------------------------------------
# Registration, docstrings


_MODULES = [functional, setops, misc, histograms, einsum_path, io_printing, type_names]


def test_names_are_exported():
    for mod in _MODULES:
        for name in mod.__all__:
            assert getattr(jnp, name) is getattr(mod, name), name


@pytest.mark.parametrize("mod", _MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(mod):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    globs = {"jnp": jnp, "np": np, "spmd": spmd}
    before = np.get_printoptions()
    try:
        result = doctest.testmod(mod, extraglobs=globs, optionflags=flags, verbose=False)
        assert result.failed == 0 and result.attempted > 0
        if mod is misc:
            # The index-expression objects are instances: doctest's finder skips their docs.
            for obj in (misc.r_, misc.c_, misc.mgrid, misc.ogrid):
                runner = doctest.DocTestRunner(optionflags=flags)
                for test in doctest.DocTestFinder().find(obj, repr(obj), globs=dict(globs)):
                    runner.run(test)
                assert runner.failures == 0, repr(obj)
    finally:
        np.set_printoptions(**before)


def test_every_public_function_has_an_example():
    for mod in _MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if getattr(obj, "__module__", None) != mod.__name__ and not isinstance(
                obj, (misc._AxisConcatenator, misc._Grid)
            ):
                continue  # NumPy's own objects, re-exported as JAX does
            assert ">>>" in (obj.__doc__ or ""), name
