"""Every primitive's transformation rules, driven by the sweep registry (``sweep_cases.py``).

For each primitive, over a sample of its sweep calls:

- ``vmap:<name>`` -- the batching rule: ``spmd.vmap`` of the call over a batch of 3 equals the
  per-slice loop stacked with ``np.stack``. Each operand is batched in turn (the others stay
  unbatched) and then all together, with the batch axis in front (``in_axes=0``) and last.
  Slices are permutations of the sweep's operand, so they stay in its domain. With all operands
  batched, ``jit(vmap(...))`` must also give eager vmap's bits (the rule traced).
- ``jvp:<name>`` -- forward mode: ``check_grads(..., order=2, modes=("fwd",))`` in float64 on
  fresh well-conditioned inputs (continuous random values: no ties, kinks away from the
  finite-difference stencil), differentiating the floating-point operands and outputs, and
  at first order under ``jit``. Non-float outputs must get float0 tangents.
- ``vjp:<name>`` -- reverse mode (linearize + transpose): ``check_grads(..., order=2,
  modes=("rev",))``; non-float outputs take float0 cotangents and give zero cotangents.

``KNOWN_FAILURES`` lists the checks that fail today with a reason (a missing or wrong rule).
It is kept honest: a listed check that passes fails the test, so the list only shrinks.
Primitives that no check applies to are listed, with a reason, in ``NO_VMAP_CHECK`` or
``NO_GRAD_CHECK``; a primitive that is neither checked nor listed fails the coverage tests.

Run this file as a script to print the ``KNOWN_FAILURES`` the current rules call for.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from golden_compare import to_spmd
from sweep_cases import ENTRIES, Config, all_primitives

import spmd
from spmd._src import dtypes
from spmd.test_util import check_grads

PRIMS = all_primitives()
BATCH = 3

# Primitives no vmap check applies to: name -> reason.
NO_VMAP_CHECK: dict[str, str] = {
    "iota": "no operands: there is nothing to batch",
    "ragged_all_to_all": "its offsets and sizes must agree across devices, which permuted "
    "values break; its vmaps (named, positional, unbatched offsets) are tested in "
    "tests/test_ragged_all_to_all.py",
}

# Primitives no derivative check applies to: name -> reason.
_INT_ONLY = "integer and boolean operands only: tangents are float0, no rule is involved"
NO_GRAD_CHECK: dict[str, str] = {
    "iota": "no operands",
    "reduce_precision": "piecewise constant at float64 resolution: finite differences jump "
    "(JAX's rule passes the tangent through rounded; see test_reduce_precision_jvp)",
    "bitcast_convert_type": "reinterprets bits: not differentiable",
    "nextafter": "JAX defines no derivative for nextafter",
    "hessenberg": "JAX defines no derivative for hessenberg",
    "schur": "JAX defines no derivative for schur",
    **{
        n: f"JAX 0.10.2 defines no derivative for {n}"
        for n in (
            "cholesky_update",
            "householder_product",
            "ormqr",
            "symmetric_product",
            "tridiagonal",
        )
    },
    "lu_pivots_to_permutation": "integer operands only: tangents are float0",
    "igamma_grad_a": "JAX defines no derivative for igamma_grad_a",
    "igamma_grad_aa": "spmd-internal (random_gamma_grad's d/da): no derivative of its own",
    "xla_fma16": "float16 operands only (XLA's fused float16 multiply-add), and the checks run "
    "in float64; its jvp is xla_fma's, checked there",
    "zeta": "JAX's lax.zeta has no derivative (jax.scipy.special.zeta's custom rule is tested in "
    "tests/test_scipy_special.py)",
    **{
        n: "PRNG key and counter operands (uint32) only: tangents are float0"
        for n in ("random_bits", "random_fold_in", "random_seed", "random_split", "threefry2x32")
    },
    "stop_gradient": "its derivative is zero by definition, unlike its finite differences "
    "(see test_stop_gradient_has_zero_derivative)",
    **{
        n: _INT_ONLY
        for n in (
            "and or xor not shift_left shift_right_logical shift_right_arithmetic "
            "population_count clz reduce_and reduce_or reduce_xor mulhi"
        ).split()
    },
}

# Primitives whose reverse mode raises, as in JAX: name -> (error class, reason). Their vjp
# check asserts that every call's pullback raises it.
REV_RAISES: dict[str, tuple[type, str]] = {
    "while": (ValueError, "reverse mode of a loop with a dynamic trip count is not defined"),
    "random_gamma_grad": (ValueError, "JAX differentiates it through while loops: jvp only"),
}

# Checks that fail today: "vmap:<name>" / "jvp:<name>" / "vjp:<name>" -> reason. Strict: a
# listed check that passes fails (remove it here when its rule lands).
KNOWN_FAILURES: dict[str, str] = {}

# Input domains for the derivative checks (fresh float64 values): one domain for every
# differentiated float operand, or a list by differentiated float operand. (lo, hi) is
# uniform; "nz" is |x| in [0.5, 2], either sign.
GRAD_DOMAIN: dict[str, object] = {
    "log": (0.5, 3.0),
    "log1p": (-0.5, 3.0),
    "xla_log": (0.5, 3.0),
    "xla_log1p": (-0.5, 3.0),
    "xla_erf_inv": (-0.9, 0.9),
    "sqrt": (0.5, 4.0),
    "rsqrt": (0.5, 4.0),
    "cbrt": "nz",
    "asin": (-0.9, 0.9),
    "acos": (-0.9, 0.9),
    "atanh": (-0.9, 0.9),
    "acosh": (1.5, 4.0),
    "tan": (-1.2, 1.2),
    "xla_tan": (-1.2, 1.2),
    "lgamma": (0.5, 6.0),
    "digamma": (0.5, 6.0),
    "polygamma": (1.0, 3.0),  # x (m is held); near 0 high orders are too large for FD
    "igamma": (0.5, 3.0),  # x (a is held: its derivative igamma_grad_a has none)
    "igammac": (0.5, 3.0),
    "random_gamma_grad": (0.5, 3.0),  # x > 0 (a is held; elsewhere it is constant)
    "regularized_incomplete_beta": (0.1, 0.9),  # x (a and b are held)
    "erf_inv": (-0.9, 0.9),
    "div": [(-2.0, 2.0), "nz"],
    "rem": [(-2.0, 2.0), "nz"],
    "pow": [(0.5, 2.0), (-2.0, 2.0)],
    "xla_pow": [(0.5, 2.0), (-2.0, 2.0)],
    "integer_pow": "nz",
    "cumprod": "nz",
    "reduce_prod": "nz",
    "scatter-mul": "nz",
    "cumlogsumexp": (-2.0, 2.0),
    # lo < x < hi is where clamp is smooth in all three (JAX's rule assumes lo <= hi).
    "clamp": [(-2.0, -1.0), (-2.5, 2.5), (1.0, 2.0)],
    # a's diagonal kept away from 0, so the triangle is well conditioned for finite differences.
    "triangular_solve": ["nz", (-2.0, 2.0)],
}

# Float operands that are not differentiated (held at the sweep's values, in float64):
# name -> operand positions.
NONDIFF_ARGS: dict[str, tuple[int, ...]] = {
    "polygamma": (0,),  # the order m: JAX defines no derivative with respect to it
    # As in JAX, d/da of igamma is igamma_grad_a, which has no derivative of its own (so second
    # order fails); betainc has no derivative in a or b at all. Their a-derivatives are checked
    # in tests/test_scipy_special.py.
    "igamma": (0,),
    "igammac": (0,),
    "regularized_incomplete_beta": (0, 1),
    # Its second derivative in a would need d^3P/da^3, which spmd lacks (JAX's forward mode
    # through its loops goes to any order): the first is checked against JAX's in
    # tests/test_scipy_special.py.
    "random_gamma_grad": (0,),
}

# Calls used for the derivative checks instead of the sweep's: name -> (reason, calls).
_S_ROWS = spmd.lax.ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
GRAD_CALLS: dict[str, tuple[str, list[Config]]] = {
    "scatter-mul": (
        "as in JAX, the derivative with respect to the updates needs unique_indices=True",
        [
            Config(
                "unique rows",
                lambda x, i, u: spmd.lax.scatter_mul(x, i, u, _S_ROWS, unique_indices=True),
                (
                    np.zeros((4, 3), np.float32),
                    np.array([[2], [0]], np.int32),
                    np.zeros((2, 3), np.float32),
                ),
                None,
            ),
        ],
    ),  # fmt: skip
    "convert_element_type": (
        "float64 operands: conversions to float16/bfloat16 are too coarse for finite "
        "differences, so the checked targets are float32 (smooth) and int32/bool (float0)",
        [
            Config(
                f"float64->{np.dtype(d).name}",
                lambda x, d=d: spmd.lax.convert_element_type(x, d),
                (np.zeros((2, 3), np.float32),),
                None,
            )
            for d in (np.float32, np.int32, np.bool_)
        ],
    ),  # fmt: skip
    "jit": (
        "the sweep's two-result call closes over a float32 constant, which lax does not "
        "promote against float64 operands",
        [
            Config(
                "two results",
                lambda x, y: spmd.jit(lambda a, b: (spmd.lax.mul(a, b), spmd.lax.sin(a)))(x, y),
                (np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)),
                None,
            )
        ],
    ),
}

# Tolerances (atol = rtol) of derivative checks whose outputs are less precise than float64:
# "<name>:<label>" -> tolerance.
GRAD_TOL: dict[str, float] = {"convert_element_type:float64->float32": 2e-3}

VMAP_SAMPLE = 16  # sweep calls per primitive for the vmap check
GRAD_SAMPLE = 4  # and for the derivative checks


# ---------------------------------------------------------------------------------------------
# Helpers


def _is_float(a) -> bool:
    dt = np.asarray(a).dtype
    return dt.kind in "fc" or dt.name == "bfloat16"


def _sample(cfgs: list[Config], k: int) -> list[Config]:
    if len(cfgs) <= k:
        return list(cfgs)
    idx = np.linspace(0, len(cfgs) - 1, k).round().astype(int)
    return [cfgs[i] for i in sorted(set(idx.tolist()))]


def _leaves(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _rng(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def _same(got: np.ndarray, want: np.ndarray, tol: dict | None) -> str | None:
    """None if ``got`` matches ``want`` (dtype and shape exactly; values exactly, or within
    the sweep call's tolerance for its dtype), else a description of the difference."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return (
            f"got {got.dtype}{list(got.shape)}, per-slice loop gives {want.dtype}{list(want.shape)}"
        )
    if _is_float(got) and got.dtype.kind != "c":
        g, w = got.astype(np.float64), want.astype(np.float64)
        t = (tol or {}).get(got.dtype.name, 0.0)
        with np.errstate(invalid="ignore"):
            ok = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= t * (1 + np.abs(w)))
    elif got.dtype.kind == "c":
        ok = (got == want) | (np.isnan(got) & np.isnan(want))
    else:
        ok = got == want
    bad = np.flatnonzero(~np.asarray(ok))
    if bad.size:
        i = bad[:3]
        return (
            f"{bad.size} of {got.size} values differ, e.g. at {i.tolist()}: got "
            f"{got.ravel()[i].tolist()}, per-slice loop gives {want.ravel()[i].tolist()}"
        )
    return None


def _outcome(key: str, errors: list[str], known: dict | None = None) -> None:
    """Fail, xfail or pass the check ``key`` given its errors and the known failures
    (``known``, default this file's KNOWN_FAILURES)."""
    known = KNOWN_FAILURES if known is None else known
    if key in known:
        if not errors:
            pytest.fail(f"{key} is listed in KNOWN_FAILURES but passes: remove it from the list")
        pytest.xfail(f"{known[key]} -- e.g. {errors[0][:300]}")
    if errors:
        pytest.fail(f"{len(errors)} failing calls:\n  " + "\n  ".join(e[:800] for e in errors[:8]))


# ---------------------------------------------------------------------------------------------
# vmap against a per-slice loop


def _slices(name: str, cfg: Config, i: int, a) -> list[np.ndarray]:
    """BATCH values of operand ``i``: the sweep's value and permutations of it."""
    a = np.asarray(a)
    rng = _rng(name, cfg.label, i)
    out = [a]
    for _ in range(BATCH - 1):
        flat = a.reshape(-1)
        out.append(flat[rng.permutation(flat.size)].reshape(a.shape))
    return out


def _variants(nargs: int) -> list[tuple[tuple[int, ...], str]]:
    sets = [tuple(range(nargs))] if nargs == 1 else [(i,) for i in range(nargs)]
    if nargs > 1:
        sets.append(tuple(range(nargs)))
    return [(s, where) for s in sets for where in ("front", "last")]


def vmap_errors(name: str, cfg: Config) -> list[str]:
    errs = []
    slices = [_slices(name, cfg, i, a) for i, a in enumerate(cfg.args)]
    for batched, where in _variants(len(cfg.args)):
        tag = f"{name}:{cfg.label} batched={list(batched)} axis={where}"
        try:
            args, axes = [], []
            for i, a in enumerate(cfg.args):
                if i not in batched:
                    args.append(to_spmd(np.asarray(a)))
                    axes.append(None)
                    continue
                stacked = np.stack(slices[i])
                ax = 0 if where == "front" else stacked.ndim - 1
                args.append(to_spmd(np.moveaxis(stacked, 0, ax)))
                axes.append(ax)
            per_slice = []
            for k in range(BATCH):
                ins = [slices[i][k] if i in batched else np.asarray(a)
                       for i, a in enumerate(cfg.args)]  # fmt: skip
                per_slice.append([np.asarray(o) for o in _leaves(cfg.fn(*map(to_spmd, ins)))])
            want = [np.stack([s[j] for s in per_slice]) for j in range(len(per_slice[0]))]
            got = _leaves(spmd.vmap(cfg.fn, in_axes=tuple(axes))(*args))
            if len(got) != len(want):
                errs.append(f"{tag}: {len(got)} results, per-slice loop gives {len(want)}")
                continue
            for j, (g, w) in enumerate(zip(got, want)):
                msg = _same(np.asarray(g), w, cfg.tol)
                if msg:
                    errs.append(f"{tag}: result {j}: {msg}")
            if len(batched) == len(cfg.args) and where == "front":
                # The rule again while a jaxpr is traced (no concrete values): jit(vmap) gives
                # eager vmap's results, bit for bit.
                jitted = _leaves(spmd.jit(spmd.vmap(cfg.fn, in_axes=tuple(axes)))(*args))
                for j, (g, w) in enumerate(zip(jitted, got)):
                    msg = _same(np.asarray(g), np.asarray(w), None)
                    if msg:
                        msg = msg.replace("per-slice loop", "eager vmap")
                        errs.append(f"{tag}: result {j} under jit: {msg}")
        except Exception as e:  # noqa: BLE001 -- report every call, not just the first
            errs.append(f"{tag}: raised {type(e).__name__}: {e}")
    return errs


VMAP_NAMES = sorted(n for n in PRIMS if n in ENTRIES and n not in NO_VMAP_CHECK)


@pytest.mark.parametrize("name", VMAP_NAMES)
def test_vmap(name):
    errors = []
    for cfg in _sample(ENTRIES[name], VMAP_SAMPLE):
        errors += vmap_errors(name, cfg)
    _outcome(f"vmap:{name}", errors)


# ---------------------------------------------------------------------------------------------
# Derivatives against finite differences


def _fresh(name: str, cfg: Config, j: int, a: np.ndarray) -> np.ndarray:
    """A float64 (complex128) value of ``a``'s shape in the primitive's domain."""
    dom = GRAD_DOMAIN.get(name, (-2.0, 2.0))
    if isinstance(dom, list):
        dom = dom[min(j, len(dom) - 1)]
    rng = _rng("grad", name, cfg.label, j)
    shape = np.shape(a)
    if dom == "nz":
        v = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        v = rng.uniform(*dom, shape)
    if np.asarray(a).dtype.kind == "c":
        return (v + 1j * rng.uniform(-2.0, 2.0, shape)).astype(np.complex128)
    return np.asarray(v, np.float64)


def _to64(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a.astype(np.float64) if _is_float(a) else a


def _grad_configs(name: str) -> list[Config]:
    """Sweep calls with a float operand, one per dtype-independent variant: float64 makes the
    float32/float16/bfloat16 versions of a call the same, so only one dtype's calls are kept."""
    if name in GRAD_CALLS:
        return GRAD_CALLS[name][1]
    cfgs = [c for c in ENTRIES.get(name, []) if any(_is_float(a) for a in c.args)]
    for pick in ("float32", "complex64"):
        sub = [c for c in cfgs if any(np.asarray(a).dtype.name == pick for a in c.args)]
        if sub:
            cfgs = sub
            break
    return _sample(cfgs, GRAD_SAMPLE)


def _grad_problem(name: str, cfg: Config):
    """(f, float args, float output indices, non-float output indices): ``f`` takes the float
    operands (the others are fixed) and returns its float outputs as a tuple."""
    held = NONDIFF_ARGS.get(name, ())
    pos = [i for i, a in enumerate(cfg.args) if _is_float(a) and i not in held]
    fixed = [_to64(np.asarray(a)) for a in cfg.args]
    fargs = tuple(_fresh(name, cfg, j, cfg.args[i]) for j, i in enumerate(pos))

    def full(*fa):
        ins = list(fixed)
        for i, v in zip(pos, fa):
            ins[i] = v
        return _leaves(cfg.fn(*map(to_spmd, ins)))

    outs = full(*fargs)
    f_idx = [k for k, o in enumerate(outs) if _is_float(o)]
    other = [k for k, o in enumerate(outs) if not _is_float(o)]

    def f(*fa):
        o = full(*fa)
        return tuple(o[k] for k in f_idx)

    return f, full, fargs, f_idx, other


def _jvp_zero_errors(full, fargs, other, tag) -> list[str]:
    """Non-float outputs must have float0 tangents."""
    tangents = tuple(np.ones_like(a) for a in fargs)
    _, t_out = spmd.jvp(lambda *a: tuple(full(*a)), fargs, tangents)
    errs = []
    for k in other:
        t = t_out[k]
        if np.asarray(t).dtype != dtypes.float0:
            errs.append(f"{tag}: tangent of non-float result {k} has dtype {np.asarray(t).dtype}")
    return errs


def _vjp_zero_errors(full, fargs, other, tag) -> list[str]:
    """With zero cotangents for float outputs and float0 ones for the rest, the input
    cotangents are zeros of the inputs' types."""
    outs, pullback = spmd.vjp(lambda *a: tuple(full(*a)), *fargs)
    cts = tuple(
        np.zeros(np.shape(o), dtypes.float0) if k in other else np.zeros_like(np.asarray(o))
        for k, o in enumerate(outs)
    )
    errs = []
    for j, (c, a) in enumerate(zip(pullback(cts), fargs)):
        c = np.asarray(c)
        if c.dtype != a.dtype or c.shape != a.shape or np.any(c != 0):
            errs.append(f"{tag}: cotangent {j} is {c.dtype}{list(c.shape)} {c.ravel()[:4]}")
    return errs


def grad_errors(name: str, cfg: Config, mode: str) -> list[str]:
    tag = f"{name}:{cfg.label}"
    try:
        f, full, fargs, f_idx, other = _grad_problem(name, cfg)
        errs = []
        if f_idx:
            tol = GRAD_TOL.get(tag)
            check_grads(f, fargs, order=2, modes=(mode,), atol=tol, rtol=tol)
            # Under jit the rules run while a jaxpr is traced (first order is enough).
            check_grads(spmd.jit(f), fargs, order=1, modes=(mode,), atol=tol, rtol=tol)
        if other:
            errs += (_jvp_zero_errors if mode == "fwd" else _vjp_zero_errors)(
                full, fargs, other, tag
            )
        return errs
    except Exception as e:  # noqa: BLE001
        first = str(e).strip().splitlines()
        return [f"{tag}: {type(e).__name__}: {' | '.join(first[:6])}"]


GRAD_NAMES = sorted(n for n in PRIMS if _grad_configs(n) and n not in NO_GRAD_CHECK)


@pytest.mark.parametrize("name", GRAD_NAMES)
def test_jvp(name, x64):
    errors = []
    for cfg in _grad_configs(name):
        errors += grad_errors(name, cfg, "fwd")
    _outcome(f"jvp:{name}", errors)


def _rev_raises_errors(name: str, cfg: Config) -> list[str]:
    cls, _ = REV_RAISES[name]
    f, _, fargs, _, _ = _grad_problem(name, cfg)
    try:
        # As in JAX, the pullback raises (the forward pass runs).
        outs, pullback = spmd.vjp(f, *fargs)
        pullback(tuple(np.ones_like(np.asarray(o)) for o in outs))
    except cls:
        return []
    except Exception as e:  # noqa: BLE001
        return [f"{name}:{cfg.label}: vjp raised {type(e).__name__} (want {cls.__name__}): {e}"]
    return [f"{name}:{cfg.label}: vjp did not raise {cls.__name__}"]


@pytest.mark.parametrize("name", GRAD_NAMES)
def test_vjp(name, x64):
    errors = []
    for cfg in _grad_configs(name):
        if name in REV_RAISES:
            errors += _rev_raises_errors(name, cfg)
        else:
            errors += grad_errors(name, cfg, "rev")
    _outcome(f"vjp:{name}", errors)


def test_reduce_precision_jvp(x64):
    # The tangent of reduce_precision is the tangent rounded the same way (as in JAX).
    x = np.array([1.0, 2.5, -3.0], np.float64)
    t = np.array([0.1, 1 / 3, 1e-9], np.float64)
    key = "jvp:reduce_precision"
    try:
        _, tout = spmd.jvp(lambda v: spmd.lax.reduce_precision(v, 5, 10), (x,), (t,))
        want = t.astype(np.float16).astype(np.float64)
        errs = [] if np.array_equal(np.asarray(tout), want) else [f"got {tout}, want {want}"]
    except Exception as e:  # noqa: BLE001
        errs = [f"raised {type(e).__name__}: {e}"]
    _outcome(key, errs)


def test_stop_gradient_has_zero_derivative(x64):
    x = np.array([0.5, -2.0], np.float64)
    errs = []
    try:
        _, t = spmd.jvp(spmd.lax.stop_gradient, (x,), (np.ones(2),))
        if not np.array_equal(np.asarray(t), np.zeros(2)):
            errs.append(f"jvp tangent {t}, want zeros")
        g = spmd.grad(lambda v: (spmd.lax.stop_gradient(v) * v).sum())(x)
        if not np.array_equal(np.asarray(g), x):
            errs.append(f"grad of stop_gradient(x) * x is {g}, want x")
    except Exception as e:  # noqa: BLE001
        errs.append(f"raised {type(e).__name__}: {e}")
    _outcome("jvp:stop_gradient", errs)


# ---------------------------------------------------------------------------------------------
# Coverage: nothing is skipped silently


def _unchecked(checked, listed) -> list[str]:
    # Primitives with no sweep calls at all fail test_primitive_sweep's coverage test (or are
    # listed, with a reason, in sweep_cases.KNOWN_UNSWEPT): not reported twice.
    return sorted(n for n in PRIMS if n in ENTRIES and n not in checked and n not in listed)


def test_every_primitive_is_vmap_checked_or_listed():
    missing = _unchecked(VMAP_NAMES, NO_VMAP_CHECK)
    assert not missing, f"primitives with no vmap check and no NO_VMAP_CHECK reason: {missing}"


def test_every_primitive_is_grad_checked_or_listed():
    missing = _unchecked(GRAD_NAMES, NO_GRAD_CHECK)
    assert not missing, (
        f"primitives with no derivative check (no sweep call with a float operand) and no "
        f"NO_GRAD_CHECK reason: {missing}"
    )


def test_lists_name_primitives():
    stale = [n for n in [*NO_VMAP_CHECK, *NO_GRAD_CHECK, *REV_RAISES] if n not in PRIMS]
    stale += [k for k in KNOWN_FAILURES if k.partition(":")[2] not in PRIMS]
    bad_kind = [k for k in KNOWN_FAILURES if k.partition(":")[0] not in ("vmap", "jvp", "vjp")]
    assert not stale, f"entries that name no primitive: {stale}"
    assert not bad_kind, f"KNOWN_FAILURES keys must start with vmap:, jvp: or vjp:: {bad_kind}"


def test_check_catches_a_wrong_rule(x64):
    """The derivative check fails on a primitive whose JVP rule is off by a factor."""
    from spmd._src import core
    from spmd._src.interpreters import ad, batching

    p = core.Primitive("sweep_rules_wrong_sin")
    p.def_impl(np.sin)
    p.def_abstract_eval(lambda x: x)
    ad.primitive_jvps[p] = lambda ps, ts, out: spmd.lax.mul(
        spmd.lax.mul(ts[0], spmd.lax.cos(ps[0])), np.float64(1.01)
    )
    batching.primitive_batchers[p] = lambda axis_data, vals, dims: (p.bind(vals[0]), dims[0])
    try:
        with pytest.raises(AssertionError):
            check_grads(p.bind, (np.array([0.3, 1.2]),), order=1, modes=("fwd",))
    finally:
        del ad.primitive_jvps[p], batching.primitive_batchers[p]


if __name__ == "__main__":
    # Print the KNOWN_FAILURES that today's rules call for.
    spmd.config.update("jax_enable_x64", True)
    found = {}
    for n in VMAP_NAMES:
        errs = [e for c in _sample(ENTRIES[n], VMAP_SAMPLE) for e in vmap_errors(n, c)]
        if errs:
            found[f"vmap:{n}"] = errs[0]
    for n in GRAD_NAMES:
        for mode, kind in (("fwd", "jvp"), ("rev", "vjp")):
            if kind == "vjp" and n in REV_RAISES:
                errs = [e for c in _grad_configs(n) for e in _rev_raises_errors(n, c)]
            else:
                errs = [e for c in _grad_configs(n) for e in grad_errors(n, c, mode)]
            if errs:
                found[f"{kind}:{n}"] = errs[0]
    import re

    def reason(err: str) -> str:
        for pat, what in [
            (r"batching rule for the primitive '([^']+)'", "no batching rule"),
            (r"Differentiation rule for the primitive '([^']+)'", "no JVP rule"),
            (r"Transpose rule \(for reverse-mode differentiation\) for the primitive '([^']+)'",
             "no transpose rule"),
        ]:  # fmt: skip
            m = re.search(pat, err)
            if m:
                return what + (f" for {m.group(1)}" if m.group(1) != err.partition(":")[0] else "")
        return err[:150]

    for k in sorted(found):
        print(f"    {k!r}: {reason(found[k])!r},")
