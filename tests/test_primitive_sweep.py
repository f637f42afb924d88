"""Every primitive, over shapes and dtypes, against NumPy (the registry is ``sweep_cases.py``).

For each call of each primitive:

(a) the NumPy kernel's result has the dtype and shape the primitive's abstract evaluation gives
    for the operands and parameters the wrapper binds, and (operands being strongly typed) no
    result is weakly typed;
(b) the values equal a NumPy reference (exactly, or within the call's tolerance by dtype);
(c) ``spmd.jit`` of the same call gives bit-identical results.

Dtypes a primitive does not accept must raise TypeError. ``WEAK_CASES`` checks the weak type of
results for weakly typed operands against JAX. A primitive defined in a module under
``spmd/_src/lax/`` without an entry in the registry fails the coverage test unless it is listed
in ``KNOWN_UNSWEPT`` (in ``sweep_cases.py``) with a reason, so a new primitive cannot arrive
untested; a listed primitive that has entries fails too, so the list only shrinks.
"""

from __future__ import annotations

import numpy as np
import pytest
from golden_compare import to_spmd
from sweep_cases import ENTRIES, KNOWN_UNSWEPT, REJECTS, Config, all_primitives

import spmd
from spmd._src import core
from spmd._src.array import Array
from spmd._src.core import Literal

# Sweep calls known to fail: "primitive:label" -> reason (the test reports them as xfail).
KNOWN_FAILURES: dict[str, str] = {}


PRIMS = all_primitives()


def test_every_primitive_is_swept():
    missing = sorted(n for n in PRIMS if n not in ENTRIES and n not in KNOWN_UNSWEPT)
    assert not missing, (
        f"primitives without a sweep entry: {missing}. Add calls to tests/sweep_cases.py "
        "(or, with a reason, to KNOWN_UNSWEPT)."
    )


def test_unswept_list_is_current():
    swept = sorted(n for n in KNOWN_UNSWEPT if n in ENTRIES)
    assert not swept, f"listed in KNOWN_UNSWEPT but swept now (remove them there): {swept}"


def test_no_stale_entries():
    stale = sorted(n for n in list(ENTRIES) + list(KNOWN_UNSWEPT) if n not in PRIMS)
    assert not stale, f"sweep entries for names that are not primitives: {stale}"


def test_labels_are_unique():
    dup = []
    for name, cfgs in ENTRIES.items():
        labels = [c.label for c in cfgs]
        dup += [f"{name}:{x}" for x in sorted(set(labels)) if labels.count(x) > 1]
    assert not dup, f"sweep labels must be unique within a primitive: {dup}"
    stale = [k for k in KNOWN_FAILURES if k not in {f"{n}:{c.label}" for n in ENTRIES
                                                    for c in ENTRIES[n]}]  # fmt: skip
    assert not stale, f"KNOWN_FAILURES names no sweep call: {stale}"


def _leaves(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _ref_arg(a, native: bool):
    a = np.asarray(a)
    if native or a.dtype.kind not in "fV" and a.dtype.name != "bfloat16":
        return a
    return a.astype(np.float64)


def _np_dtype(name: str) -> np.dtype:
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _check_values(got: np.ndarray, want: np.ndarray, tol: dict | None) -> str | None:
    if got.shape != want.shape:
        return f"shape {got.shape}, reference {want.shape}"
    if got.dtype.kind in "biu" or tol is None or got.dtype.kind == "c":
        g, w = got, want
        if got.dtype.kind in "fVc" or got.dtype.name == "bfloat16":
            g, w = got.astype(np.complex128), want.astype(np.complex128)
            with np.errstate(invalid="ignore"):
                same = (g == w) | (np.isnan(g) & np.isnan(w))
        else:
            same = g == w
        bad = np.flatnonzero(~np.asarray(same))
    else:
        t = tol.get(got.dtype.name, 1e-6)
        g, w = got.astype(np.float64), want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = (g == w) | (np.abs(g - w) <= t + t * np.abs(w))
        close |= np.isnan(g) & np.isnan(w)
        bad = np.flatnonzero(~close)
    if bad.size:
        i = bad[:4]
        return (
            f"{bad.size} of {got.size} values differ from NumPy, e.g. at {i.tolist()}: "
            f"got {got.ravel()[i].tolist()}, expected {want.ravel()[i].tolist()}"
        )
    return None


def _direct_bind(prim: core.Primitive, cfg: Config, args: list):
    """The abstract evaluation and the kernel's result for ``prim`` on the operands and params
    the wrapper binds (read from its jaxpr)."""
    closed = spmd.make_jaxpr(cfg.fn)(*args)
    jaxpr = closed.jaxpr
    eqns = [e for e in jaxpr.eqns if e.primitive is prim]
    if len(eqns) != 1:
        raise AssertionError(
            f"the call binds {prim.name} {len(eqns)} times (want once); jaxpr:\n{closed}"
        )
    (eqn,) = eqns
    # Run the equations before it (the wrapper's index normalisation and the like) eagerly.
    env = dict(zip(map(id, jaxpr.invars), args))
    env.update(zip(map(id, jaxpr.constvars), closed.consts))

    def read(v):
        return v.val if type(v) is Literal else env[id(v)]

    for e in jaxpr.eqns:
        if e is eqn:
            break
        outs = e.primitive.bind(*map(read, e.invars), **e.params)
        env.update(zip(map(id, e.outvars), outs if e.primitive.multiple_results else [outs]))
    vals = [read(v) for v in eqn.invars]
    in_avals = [v.aval for v in eqn.invars]
    # The NumPy kernel itself, unwrapped: eager dispatch casts its output to the abstract
    # type, which would hide a kernel returning the wrong dtype.
    raw = prim.impl(
        *[
            v._value if type(v) is Array else np.asarray(v, dtype=a.dtype)
            for v, a in zip(vals, in_avals)
        ],
        **eqn.params,
    )
    return prim.abstract_eval(*in_avals, **eqn.params), raw


def _run_config(prim: core.Primitive, cfg: Config) -> list[str]:
    errs = []
    args = [to_spmd(a) for a in cfg.args]
    eager = _leaves(cfg.fn(*args))
    # (a) abstract evaluation agrees with what the kernel produces; with no weakly typed
    # operand, no result is weak.
    out_aval, raw = _direct_bind(prim, cfg, args)
    avals = out_aval if prim.multiple_results else [out_aval]
    raw = list(raw) if prim.multiple_results else [raw]
    if len(avals) != len(raw):
        errs.append(f"abstract eval gives {len(avals)} results, the kernel {len(raw)}")
    for i, (a, r) in enumerate(zip(avals, raw)):
        r = np.asarray(r)
        if (a.shape, a.dtype) != (r.shape, r.dtype):
            errs.append(
                f"result {i}: kernel gives {r.dtype}{list(r.shape)}, abstract eval "
                f"{a.dtype}{list(a.shape)}"
            )
        if a.weak_type:
            errs.append(f"result {i}: abstract eval says weak_type=True for strong operands")
    for i, e in enumerate(eager):
        if getattr(e, "weak_type", False):
            errs.append(f"result {i}: eager result is weakly typed for strong operands")
    # (b) values against NumPy.
    want = cfg.ref(*[_ref_arg(a, cfg.native) for a in cfg.args])
    want = _leaves(want) if isinstance(want, (list, tuple)) else [want]
    out_dtypes = cfg.out_dtype if isinstance(cfg.out_dtype, list) else [cfg.out_dtype]
    if len(want) != len(eager):
        return errs + [f"{len(eager)} results, reference has {len(want)}"]
    for i, (g, w, dt) in enumerate(zip(eager, want, out_dtypes)):
        g = np.asarray(g)
        if dt is not None and g.dtype != _np_dtype(dt):
            errs.append(f"result {i}: dtype {g.dtype}, expected {dt}")
            continue
        with np.errstate(all="ignore"):
            w = np.asarray(w).astype(g.dtype)
        msg = _check_values(g, w, cfg.tol)
        if msg:
            errs.append(f"result {i}: {msg}")
    # (c) jit gives the same bits as eager.
    jitted = _leaves(spmd.jit(cfg.fn)(*args))
    for i, (g, j) in enumerate(zip(eager, jitted)):
        g, j = np.asarray(g), np.asarray(j)
        if g.dtype != j.dtype or g.shape != j.shape:
            errs.append(f"result {i}: jit gives {j.dtype}{list(j.shape)}, eager "
                        f"{g.dtype}{list(g.shape)}")  # fmt: skip
        elif g.tobytes() != j.tobytes():
            gb = np.ascontiguousarray(g).reshape(-1).view(np.uint8)
            jb = np.ascontiguousarray(j).reshape(-1).view(np.uint8)
            k = np.flatnonzero(gb != jb)[0] // g.itemsize
            errs.append(f"result {i}: jit differs from eager at flat index {k}: "
                        f"{j.ravel()[k]!r} vs {g.ravel()[k]!r}")  # fmt: skip
    return errs


@pytest.mark.parametrize("name", sorted(n for n in PRIMS if n in ENTRIES))
def test_sweep(name):
    prim = PRIMS[name]
    failures, expected = [], []
    for cfg in ENTRIES[name]:
        key = f"{name}:{cfg.label}"
        try:
            errs = _run_config(prim, cfg)
        except Exception as e:  # noqa: BLE001 -- report every call, not just the first
            errs = [f"raised {type(e).__name__}: {e}"]
        if errs:
            (expected if key in KNOWN_FAILURES else failures).append(f"{key}: " + "; ".join(errs))
        elif key in KNOWN_FAILURES:
            failures.append(f"{key}: listed in KNOWN_FAILURES but passes")
    assert not failures, f"{len(failures)} failing calls:\n  " + "\n  ".join(failures[:30])
    if expected:
        pytest.xfail(f"{len(expected)} known failures: " + "; ".join(expected[:3]))


@pytest.mark.parametrize("name", sorted(n for n in PRIMS if n in REJECTS))
def test_rejects_dtypes(name):
    failures = []
    for label, fn, args in REJECTS[name]:
        try:
            fn(*[to_spmd(a) for a in args])
        except TypeError:
            continue
        except Exception as e:  # noqa: BLE001
            failures.append(f"{label}: raised {type(e).__name__} instead of TypeError: {e}")
            continue
        failures.append(f"{label}: accepted")
    assert not failures, f"{name} must reject:\n  " + "\n  ".join(failures)


# Weak types through primitives: results of JAX 0.10 with weakly typed f32[3] (wf) / i32[3] (wi)
# operands, and a strong f32[3] (sf). As a rule a result is weak when every operand is, but not
# for every primitive (argmax, reduce_and/or/xor, bitcast, convert_element_type and
# dynamic_update_slice give strong results).
_UNARY_WEAK = (
    "exp exp2 log log1p expm1 tanh logistic sin cos tan asin acos atan sinh cosh asinh acosh "
    "atanh sqrt rsqrt cbrt erf erfc erf_inv lgamma digamma floor ceil round is_finite neg sign "
    "abs square bessel_i0e"
).split()
_BINARY_WEAK = "add sub mul div rem pow max min atan2 nextafter eq ne lt le gt ge".split()
_INT_WEAK = "bitwise_and bitwise_or bitwise_xor shift_left shift_right_logical".split()
WEAK_CASES: dict[str, tuple] = {
    **{f"{n}": (lambda wf, wi, sf, n=n: getattr(spmd.lax, n)(wf), True) for n in _UNARY_WEAK},
    **{f"{n}": (lambda wf, wi, sf, n=n: getattr(spmd.lax, n)(wf, wf), True) for n in _BINARY_WEAK},
    **{
        f"{n}_mixed": (lambda wf, wi, sf, n=n: getattr(spmd.lax, n)(wf, sf), False)
        for n in _BINARY_WEAK
    },
    **{f"{n}": (lambda wf, wi, sf, n=n: getattr(spmd.lax, n)(wi, wi), True) for n in _INT_WEAK},
    "shift_right_arithmetic": (lambda wf, wi, sf: spmd.lax.shift_right_arithmetic(wi, wi), True),
    "population_count": (lambda wf, wi, sf: spmd.lax.population_count(wi), True),
    "clz": (lambda wf, wi, sf: spmd.lax.clz(wi), True),
    "not": (lambda wf, wi, sf: spmd.lax.bitwise_not(wi), True),
    "integer_pow": (lambda wf, wi, sf: spmd.lax.integer_pow(wf, 2), True),
    "select_n": (lambda wf, wi, sf: spmd.lax.select_n(np.array([True, False, True]), wf, wf), True),
    "clamp": (lambda wf, wi, sf: spmd.lax.clamp(wf, wf, wf), True),
    "clamp_mixed": (lambda wf, wi, sf: spmd.lax.clamp(0.5, sf, 1.0), False),
    "convert_element_type": (lambda wf, wi, sf: spmd.lax.convert_element_type(wf, np.int32), False),
    "reduce_sum": (lambda wf, wi, sf: spmd.lax.reduce_sum(wf, (0,)), True),
    "reduce_max": (lambda wf, wi, sf: spmd.lax.reduce_max(wf, (0,)), True),
    "reduce_prod": (lambda wf, wi, sf: spmd.lax.reduce_prod(wf, (0,)), True),
    "reduce_and": (lambda wf, wi, sf: spmd.lax.reduce_and(wi, (0,)), False),
    "reduce_or": (lambda wf, wi, sf: spmd.lax.reduce_or(wi, (0,)), False),
    "reduce_xor": (lambda wf, wi, sf: spmd.lax.reduce_xor(wi, (0,)), False),
    "reduce_min": (lambda wf, wi, sf: spmd.lax.reduce_min(wi, (0,)), True),
    "argmax": (lambda wf, wi, sf: spmd.lax.argmax(wf, 0, np.int32), False),
    "argmin": (lambda wf, wi, sf: spmd.lax.argmin(wf, 0, np.int32), False),
    "cumprod": (lambda wf, wi, sf: spmd.lax.cumprod(wf, 0), True),
    "cummin": (lambda wf, wi, sf: spmd.lax.cummin(wf, 0), True),
    "top_k": (lambda wf, wi, sf: spmd.lax.top_k(wf, 2)[0], True),
    "split": (lambda wf, wi, sf: spmd.lax.split(wf, (1, 2))[0], True),
    "dynamic_update_slice": (
        lambda wf, wi, sf: spmd.lax.dynamic_update_slice(wf, wf[:1], (0,)),
        False,
    ),
    "cumsum": (lambda wf, wi, sf: spmd.lax.cumsum(wf, 0), True),
    "cummax": (lambda wf, wi, sf: spmd.lax.cummax(wf, 0), True),
    "cumlogsumexp": (lambda wf, wi, sf: spmd.lax.cumlogsumexp(wf, 0), True),
    "reshape": (lambda wf, wi, sf: spmd.lax.reshape(wf, (3, 1)), True),
    "broadcast_in_dim": (lambda wf, wi, sf: spmd.lax.broadcast_in_dim(wf, (2, 3), (1,)), True),
    "pad": (lambda wf, wi, sf: spmd.lax.pad(wf, 0.0, ((1, 1, 0),)), True),
    "concatenate": (lambda wf, wi, sf: spmd.lax.concatenate([wf, wf], 0), True),
    "concatenate_mixed": (lambda wf, wi, sf: spmd.lax.concatenate([wf, sf], 0), False),
    "rev": (lambda wf, wi, sf: spmd.lax.rev(wf, (0,)), True),
    "slice": (lambda wf, wi, sf: spmd.lax.slice(wf, (0,), (2,)), True),
    "transpose": (lambda wf, wi, sf: spmd.lax.transpose(wf.reshape(3, 1), (1, 0)), True),
    "squeeze": (lambda wf, wi, sf: spmd.lax.squeeze(wf.reshape(1, 3), (0,)), True),
    "dot_general": (
        lambda wf, wi, sf: spmd.lax.dot_general(wf, wf, (((0,), (0,)), ((), ()))),
        True,
    ),
    "dynamic_slice": (lambda wf, wi, sf: spmd.lax.dynamic_slice(wf, (1,), (2,)), True),
    "sort": (lambda wf, wi, sf: spmd.lax.sort(wf), True),
    "reduce_precision": (lambda wf, wi, sf: spmd.lax.reduce_precision(wf, 5, 10), True),
    "bitcast_convert_type": (
        lambda wf, wi, sf: spmd.lax.bitcast_convert_type(wf, np.int32),
        False,
    ),
}


@pytest.mark.parametrize("name", sorted(WEAK_CASES))
def test_weak_type(name):
    fn, expected = WEAK_CASES[name]
    wf = Array(np.array([0.5, 1.5, 2.5], np.float32), weak_type=True)
    wi = Array(np.array([1, 2, 3], np.int32), weak_type=True)
    sf = Array(np.array([0.5, 0.25, 1.0], np.float32))
    out = fn(wf, wi, sf)
    assert out.weak_type == expected, f"{name}: weak_type {out.weak_type}, JAX gives {expected}"
    jitted = spmd.jit(fn)(wf, wi, sf)
    assert jitted.weak_type == expected, f"{name} under jit: weak_type {jitted.weak_type}"
