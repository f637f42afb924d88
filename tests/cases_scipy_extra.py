"""Golden cases for ``jax.scipy.optimize.minimize``, ``jax.scipy.integrate.trapezoid``,
``jax.scipy.fft``'s DCTs and ``jax.scipy.ndimage.map_coordinates``: one list, run by JAX
(``tests/golden_gen/scipy_extra_gen.py`` records ``tests/golden/scipy_extra.json``) and by spmd
(``tests/test_scipy_extra.py`` compares).

A case is a name, a maker ``make(ns) -> fn`` and NumPy arguments; ``ns`` holds the library's
``jax`` (or ``spmd``) module as ``ns.jax``, its ``numpy`` as ``ns.jnp`` and the four SciPy
modules as ``ns.optimize``, ``ns.integrate``, ``ns.ndimage`` and ``ns.fft``. Transformations
(jit, vmap, grad) are part of ``fn``, so each case records exactly one call. ``error`` names the
builtin exception JAX raises and ``match`` a regular expression spmd's message must match.
``x64`` runs the case with 64-bit types on; ``tol`` overrides the per-dtype float tolerance
(used as both rtol and atol; the reasons are given where a case sets it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Any], Callable]
    args: tuple
    x64: bool = False
    error: str | None = None
    match: str | None = None
    tol: dict | None = None


CASES: list[Case] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), **kw))


def flatten(out: Any) -> tuple[str, list]:
    """A structure string and the leaves of a nested tuple/list/dict output; an
    ``OptimizeResults`` becomes a dict of its fields (``hess_inv=None`` left out)."""
    if hasattr(out, "_asdict"):
        out = {k: v for k, v in out._asdict().items() if v is not None}
    if isinstance(out, dict):
        parts = [(k, flatten(out[k])) for k in sorted(out)]
        s = "{" + ",".join(f"{k}:{p[0]}" for k, p in parts) + "}"
        return s, [x for _, p in parts for x in p[1]]
    if isinstance(out, (tuple, list)):
        parts = [flatten(o) for o in out]
        br = "()" if isinstance(out, tuple) else "[]"
        return br[0] + ",".join(s for s, _ in parts) + br[1], [x for _, ls in parts for x in ls]
    return "*", [out]


f32, f64 = np.float32, np.float64
LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def W(shape) -> np.ndarray:
    """Deterministic weights in [0.5, 1.5], for scalar losses of array outputs."""
    n = int(np.prod(shape, dtype=np.int64))
    return (1 + 0.5 * np.cos(np.arange(n) * 1.3)).astype(f32).reshape(shape)


# ---------------------------------------------------------------------------------------------
# optimize.minimize


def rosen(jnp):
    return lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


# Float tolerance of float32 Rosenbrock runs: its gradient (400 x (x^2 - y) ...) multiplies
# the iterates' last-bit differences (see OPT_TOL below) by ~100.
ROSEN32 = {"float32": 1e-3}


def quad(jnp):
    """0.5 x.A.x - b.x + 0.1 sum(x^4): a smooth convex bowl (A, b passed through ``args``)."""
    return lambda x, a, b: 0.5 * x @ a @ x - b @ x + 0.1 * jnp.sum(x**4)


def softplus_sum(jnp):
    """A well-conditioned smooth function whose minimiser is (1, -2, 0.5)."""
    c = jnp.array([1.0, -2.0, 0.5])
    return lambda x: jnp.sum(jnp.logaddexp(x - c, c - x)) + 0.5 * jnp.sum((x - c) ** 2)


A3 = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, -0.3], [0.0, -0.3, 1.0]], f32)
B3 = np.array([1.0, -1.0, 0.5], f32)


def MIN(fun_of, method: str, **kw):
    """Maker of ``lambda x0, *args: minimize(fun, x0, args, method=..., **kw)``."""

    def make(ns):
        fun = fun_of(ns.jnp)
        return lambda x0, *args: ns.optimize.minimize(fun, x0, args, method=method, **kw)

    return make


# Float32 runs stop at gtol=1e-4: with the default 1e-5 the last steps of a float32 run are
# taken where f no longer changes by more than its rounding, and then the number of line search
# trials depends on last-bit rounding (which XLA and NumPy do differently: JAX's own jit and
# eager runs can disagree there). The x64 cases run to the default gtol.
G4 = {"gtol": 1e-4}
for meth, tag in (("BFGS", "bfgs"), (LBFGS, "lbfgs")):
    case(f"{tag}_softplus", MIN(softplus_sum, meth, options=G4), np.zeros(3, f32))
    case(f"{tag}_quad_args", MIN(quad, meth, options=G4), np.array([0.3, -0.2, 1.0], f32), A3, B3)
    case(f"{tag}_quad_tol_ignored", MIN(quad, meth, tol=0.5, options=G4), np.zeros(3, f32), A3,
         B3)  # fmt: skip
    case(
        f"{tag}_maxiter",
        MIN(rosen, meth, options={"maxiter": 3}),
        np.array([-1.2, 1.0], f32),
        tol=ROSEN32,
    )
    case(f"{tag}_at_minimum", MIN(softplus_sum, meth), np.array([1.0, -2.0, 0.5], f32))
    case(f"{tag}_norm2_gtol", MIN(quad, meth, options={"norm": 2, "gtol": 1e-2}),
         np.zeros(3, f32), A3, B3)  # fmt: skip
    case(f"{tag}_rosen2_x64", MIN(rosen, meth), np.array([-1.2, 1.0], f64), x64=True)
    case(f"{tag}_rosen4_x64", MIN(rosen, meth), np.array([2.0, 2.0, -1.0, 0.5]), x64=True)
    case(f"{tag}_softplus_x64", MIN(softplus_sum, meth), np.zeros(3, f64), x64=True)
    case(f"{tag}_quad_x64", MIN(quad, meth), np.zeros(3, f64), A3.astype(f64),
         B3.astype(f64), x64=True)  # fmt: skip

# Rosenbrock in float32 from the classic start: JAX's line search gives up (status 3, 5)
# after a few steps, for reasons far above rounding (a collapsed zoom bracket, no step among
# the allowed trials); the counts and status are compared exactly. Rosenbrock's gradient
# (400 x (x^2 - y) ...) multiplies the iterates' last-bit differences by ~100 (ROSEN32).
case("bfgs_rosen2_f32", MIN(rosen, "BFGS"), np.array([-1.2, 1.0], f32), tol=ROSEN32)
case("bfgs_rosen3_f32", MIN(rosen, "BFGS"), np.array([-1.2, 1.0, 0.5], f32), tol=ROSEN32)
case("lbfgs_rosen3_f32", MIN(rosen, LBFGS), np.array([-1.2, 1.0, 0.5], f32), tol=ROSEN32)
case("bfgs_lowercase_method", MIN(softplus_sum, "bfgs", options=G4), np.zeros(3, f32))
case("bfgs_line_search_maxiter", MIN(rosen, "BFGS", options={"line_search_maxiter": 1}),
     np.array([-1.2, 1.0], f32), tol=ROSEN32)  # fmt: skip
case(
    "lbfgs_maxls", MIN(rosen, LBFGS, options={"maxls": 1}), np.array([-1.2, 1.0], f32), tol=ROSEN32
)
case("lbfgs_maxcor1", MIN(quad, LBFGS, options={"maxcor": 1, "gtol": 1e-4}),
     np.array([2.0, -1.0, 0.5], f32), A3 * 2, B3)  # fmt: skip
case(
    "lbfgs_maxfun",
    MIN(rosen, LBFGS, options={"maxfun": 5}),
    np.array([-1.2, 1.0], f32),
    tol=ROSEN32,
)
case(
    "lbfgs_maxgrad",
    MIN(rosen, LBFGS, options={"maxgrad": 4}),
    np.array([-1.2, 1.0], f32),
    tol=ROSEN32,
)
case(
    "lbfgs_ftol", MIN(rosen, LBFGS, options={"ftol": 0.1}), np.array([-1.2, 1.0], f32), tol=ROSEN32
)
case(
    "lbfgs_complex",
    MIN(lambda jnp: lambda z: jnp.sum(jnp.abs(z - (1 + 2j)) ** 2) + 0.1 * jnp.sum(jnp.abs(z) ** 4),
        LBFGS, options={"gtol": 1e-3}),
    np.array([0.5 - 1j, 2.0], np.complex64),
)  # fmt: skip
case("lbfgs_maxcor2_x64", MIN(rosen, LBFGS, options={"maxcor": 2}),
     np.array([2.0, 2.0, -1.0, 0.5]), x64=True)  # fmt: skip


def MIN_JIT(fun_of, method: str, **kw):
    """``minimize`` under ``jit``, every argument traced."""
    return lambda ns: ns.jax.jit(MIN(fun_of, method, **kw)(ns))


def MIN_VMAP(fun_of, method: str, in_axes=0, **kw):
    """``minimize`` under ``vmap`` (``in_axes`` over ``x0`` and the extra arguments)."""
    return lambda ns: ns.jax.vmap(MIN(fun_of, method, **kw)(ns), in_axes=in_axes)


X0S = np.array([[0.0, 0.0, 0.0], [2.0, -1.0, 0.5], [-3.0, 4.0, 1.0]], f32)
ROSEN_X0S = np.array([[-1.2, 1.0], [0.5, 0.5], [2.0, 3.0]])
for meth, tag in (("BFGS", "bfgs"), (LBFGS, "lbfgs")):
    case(f"{tag}_jit_quad_args", MIN_JIT(quad, meth, options=G4), np.zeros(3, f32), A3, B3)
    case(f"{tag}_jit_rosen2_x64", MIN_JIT(rosen, meth), np.array([-1.2, 1.0]), x64=True)
    case(f"{tag}_vmap_x0", MIN_VMAP(softplus_sum, meth, options=G4), X0S)
    case(f"{tag}_vmap_rosen_x64", MIN_VMAP(rosen, meth), ROSEN_X0S, x64=True)
    case(f"{tag}_vmap_args", MIN_VMAP(quad, meth, in_axes=(0, 0, None), options=G4), X0S,
         np.stack([A3, A3 * 2, A3 + 1]), B3)  # fmt: skip


# minimize's float tolerance (the counts and status are compared exactly): XLA and NumPy round
# sums and products differently in the last bit, and each iteration starts from the previous
# one's result, so after several iterations the iterates agree to ~1e-5 relative in float32
# (1e-9 in float64) rather than to one rounding; gradients near zero get the same absolute
# slack. (``tests/test_scipy_extra.py`` widens it for BFGS's float32 ``hess_inv``.)
OPT_TOL = {"float32": 1e-4, "float64": 1e-8}
CASES[:] = [
    dataclasses.replace(c, tol=c.tol or OPT_TOL) if c.name.startswith(("bfgs_", "lbfgs_")) else c
    for c in CASES
]


# Bad calls: JAX's builtin exception class (some come from where JAX's code happens to fail,
# and differ between the methods).
def ERR(name, method, x0, args=(), match=None, error=None, **kw):
    def make(ns):
        fun = lambda x, *a: ns.jnp.sum((x - 0.5) ** 2)  # noqa: E731
        return lambda x: ns.optimize.minimize(fun, x, args, method=method, **kw)

    case(name, make, x0, error=error, match=match)


for meth, tag in (("BFGS", "bfgs"), (LBFGS, "lbfgs")):
    ERR(f"{tag}_err_x0_2d", meth, np.ones((2, 2), f32), match=r"minimize.*x0.*1-D.*\(2, 2\)",
        error="TypeError" if tag == "bfgs" else "ValueError")  # fmt: skip
    ERR(f"{tag}_err_x0_3d", meth, np.ones((2, 2, 1), f32), match=r"minimize.*\(2, 2, 1\)",
        error="ValueError")  # fmt: skip
    ERR(f"{tag}_err_x0_scalar", meth, np.float32(1.0), match=r"minimize.*x0.*scalar",
        error="IndexError" if tag == "bfgs" else "TypeError")  # fmt: skip
    ERR(f"{tag}_err_x0_int", meth, np.array([1, 2], np.int32), match="minimize.*x0.*int32",
        error="TypeError")  # fmt: skip
    ERR(f"{tag}_err_option", meth, np.ones(2, f32), options={"foo": 1},
        match=r"minimize.*option.*foo", error="TypeError")  # fmt: skip
ERR("err_method", "nelder-mead", np.ones(2, f32), match="minimize.*nelder-mead",
    error="ValueError")  # fmt: skip
ERR("err_args_list", "BFGS", np.ones(2, f32), args=[1.0], match="minimize.*args.*tuple",
    error="TypeError")  # fmt: skip


def ERR_LIST(method, error):
    def make(ns):
        fun = lambda x: ns.jnp.sum(ns.jnp.asarray(x) ** 2)  # noqa: E731
        return lambda: ns.optimize.minimize(fun, [1.0, 2.0], method=method)

    return make


case("bfgs_err_x0_list", ERR_LIST("BFGS", "AttributeError"), error="AttributeError",
     match="minimize.*x0.*list")  # fmt: skip
case("lbfgs_err_x0_list", ERR_LIST(LBFGS, "TypeError"), error="TypeError",
     match="minimize.*x0.*list")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# integrate.trapezoid


def TRAP(**kw):
    return lambda ns: lambda *a: ns.integrate.trapezoid(*a, **kw)


Y25 = np.array([[1.0, 2.0, 4.0, 3.5, -1.0], [0.5, 0.0, 2.0, 1.0, 3.0]], f32)
X5 = np.array([0.0, 0.5, 1.5, 2.0, 4.0], f32)
case("trap_default", TRAP(), Y25)
case("trap_dx", TRAP(dx=0.25), Y25)
case("trap_dx_axis0", TRAP(dx=2.0, axis=0), Y25)
case("trap_x", TRAP(), Y25, X5)
case("trap_x_axis0", TRAP(axis=0), Y25, np.array([1.0, 3.0], f32))
case("trap_x_same_shape", TRAP(), Y25, np.stack([X5, X5 * 2]))
case("trap_int", TRAP(), np.array([1, 2, 3, 2, 3, 2, 1], np.int32),
     np.array([0, 2, 5, 7, 10, 15, 20], np.int32))  # fmt: skip
case("trap_one_sample", TRAP(dx=0.5), np.array([3.0], f32))
case("trap_x64", TRAP(), Y25.astype(f64), X5.astype(f64), x64=True)
case("trap_jit", lambda ns: ns.jax.jit(lambda y, x: ns.integrate.trapezoid(y, x)), Y25, X5)
case("trap_vmap", lambda ns: ns.jax.vmap(lambda y: ns.integrate.trapezoid(y, dx=0.5), 1), Y25)
case("trap_vmap_x", lambda ns: ns.jax.vmap(ns.integrate.trapezoid), Y25, np.stack([X5, X5 + 1]))
case(
    "trap_grad",
    lambda ns: ns.jax.grad(
        lambda y, x: ns.jnp.sum(ns.integrate.trapezoid(y, x) * W(2)), argnums=(0, 1)
    ),
    Y25,
    X5,
)
case(
    "trap_grad_dx",
    lambda ns: ns.jax.grad(
        lambda y, dx: ns.jnp.sum(ns.integrate.trapezoid(y, dx=dx, axis=0) * W(5)), argnums=(0, 1)
    ),  # fmt: skip
    Y25,
    np.float32(0.3),
)
case("trap_err_axis", TRAP(axis=2), Y25, error="ValueError", match="axis 2")
case("trap_err_x_shape", TRAP(), Y25, np.ones(3, f32), error="ValueError",
     match=r"trapezoid.*\(2,\)")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# ndimage.map_coordinates


def MAP(order, **kw):
    return lambda ns: lambda a, *c: ns.ndimage.map_coordinates(a, list(c), order, **kw)


IMG = (np.arange(12, dtype=f32).reshape(3, 4) ** 1.5 / 3).astype(f32)
# Inside, on sample points, at ties (.5: nearest rounds away from zero), and outside on each side.
CR = np.array([0.5, 1.5, -0.7, 2.6, 0.0, 2.0, -2.5, 4.2, 1.25, -0.5], f32)
CC = np.array([1.5, 2.5, 3.2, -1.4, 0.0, 3.0, 5.5, -3.0, 0.75, 3.5], f32)
MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
for mode in MODES:
    for order in (0, 1):
        case(f"map_{mode}_o{order}", MAP(order, mode=mode), IMG, CR, CC)
case("map_constant_cval", MAP(1, cval=-2.5), IMG, CR, CC)
case("map_constant_cval_o0", MAP(0, cval=7.0), IMG, CR, CC)
case("map_int_input_o1", MAP(1), np.arange(12, dtype=np.int32).reshape(3, 4) * 3, CR, CC)
case("map_int_coords", MAP(1, mode="wrap"), IMG, np.array([0, 2, -1, 3], np.int32),
     np.array([3, 0, 5, -2], np.int32))  # fmt: skip
case("map_1d", MAP(1, mode="reflect"), np.array([1.0, 4.0, 2.0, -1.0], f32),
     np.linspace(-3, 6, 13).astype(f32))  # fmt: skip
case("map_3d_coords_2d", MAP(1, mode="nearest"), np.arange(24, dtype=f32).reshape(2, 3, 4),
     np.array([[0.2, 1.7], [0.9, -0.3]], f32), np.array([[1.5, 0.1], [2.2, 2.9]], f32),
     np.array([[0.5, 3.3], [-0.6, 1.8]], f32))  # fmt: skip
case("map_x64", MAP(1, mode="mirror"), IMG.astype(f64), CR.astype(f64), CC.astype(f64), x64=True)
case("map_jit", lambda ns: ns.jax.jit(MAP(1, mode="wrap")(ns)), IMG, CR, CC)
case(
    "map_vmap_coords",
    lambda ns: ns.jax.vmap(MAP(1)(ns), in_axes=(None, 0, 0)),
    IMG,
    np.stack([CR, CR + 0.3]),
    np.stack([CC, CC - 0.6]),
)
case(
    "map_vmap_input",
    lambda ns: ns.jax.vmap(MAP(1, mode="mirror")(ns), in_axes=(0, None, None)),
    np.stack([IMG, -IMG]),
    CR,
    CC,
)
for mode in ("constant", "wrap", "reflect"):
    case(
        f"map_grad_{mode}",
        lambda ns, mode=mode: ns.jax.grad(
            lambda a, r, c: ns.jnp.sum(MAP(1, mode=mode)(ns)(a, r, c) * W(10)), argnums=(0, 1, 2)
        ),
        IMG,
        CR,
        CC,
    )
case(
    "map_grad_o0",
    lambda ns: ns.jax.grad(lambda a: ns.jnp.sum(MAP(0, mode="nearest")(ns)(a, CR, CC) * W(10))),
    IMG,
)
case("map_err_order2", MAP(2), IMG, CR, CC, error="NotImplementedError", match="order")
case("map_err_mode", MAP(1, mode="grid-wrap"), IMG, CR, CC, error="NotImplementedError",
     match="map_coordinates.*grid-wrap")  # fmt: skip
case("map_err_ncoords", MAP(1), IMG, CR, error="ValueError",
     match=r"map_coordinates.*input.ndim=2.*got 1")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# jax.scipy.fft: the type-2 DCT and its inverse (ns.fft)

_R = np.random.default_rng(7)
V5, V4 = _R.standard_normal(5).astype(f32), _R.standard_normal(4).astype(f32)
M34 = _R.standard_normal((2, 3, 4)).astype(f32)
# A transform along several axes rounds once per axis, and spmd's FFT (NumPy's pocketfft) is
# not XLA's: float32 values agree to a few ulps of the largest output, as JAX's own FFT tests
# allow (1e-5 relative).
NTOL = {"float32": 1e-5}
for _fn in ("dct", "idct"):
    for _norm in (None, "ortho", "backward"):
        case(
            f"{_fn}_{_norm}_odd",
            lambda ns, f=_fn, n=_norm: lambda x: getattr(ns.fft, f)(x, norm=n),
            V5,
        )
        case(
            f"{_fn}_{_norm}_even",
            lambda ns, f=_fn, n=_norm: lambda x: getattr(ns.fft, f)(x, norm=n),
            V4,
        )
    case(f"{_fn}_n_pad", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, n=7), V4)
    case(f"{_fn}_n_cut", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, n=3, norm="ortho"), V5)
    case(f"{_fn}_axis0", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, axis=0), M34)
    case(
        f"{_fn}_int",
        lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x),
        np.arange(6, dtype=np.int32),
    )
    case(f"{_fn}_complex", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x * (1 - 2j)), V4)
    case(f"{_fn}_one", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, norm="ortho"), V4[:1])
    case(f"{_fn}_f64", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, norm="ortho"),
         V5.astype(f64), x64=True)  # fmt: skip
    case(f"{_fn}_type3", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, type=3), V4,
         error="NotImplementedError", match="type 2")  # fmt: skip
    case(f"{_fn}_forward", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, norm="forward"), V4,
         error="ValueError", match=f"jax.scipy.fft.{_fn}: norm='forward'")  # fmt: skip
for _fn in ("dctn", "idctn"):
    case(f"{_fn}_all", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x), M34, tol=NTOL)
    case(
        f"{_fn}_ortho",
        lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, norm="ortho"),
        M34,
        tol=NTOL,
    )
    case(f"{_fn}_s", lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, s=(3, 2)), M34, tol=NTOL)
    case(
        f"{_fn}_axes_s",
        lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, s=(5,), axes=(0,)),
        M34,
        tol=NTOL,
    )
    case(
        f"{_fn}_axes",
        lambda ns, f=_fn: lambda x: getattr(ns.fft, f)(x, axes=(1, -1)),
        M34,
        tol=NTOL,
    )
case("dct_jit", lambda ns: ns.jax.jit(lambda x: ns.fft.dctn(x, norm="ortho")), M34, tol=NTOL)
case("idct_vmap", lambda ns: ns.jax.vmap(lambda x: ns.fft.idct(x, norm="ortho"), in_axes=1), M34)
case("dct_grad", lambda ns: ns.jax.grad(lambda x: ns.jnp.sum(ns.fft.dct(x) * W(5))), V5)
case(
    "idct_grad", lambda ns: ns.jax.grad(lambda x: ns.jnp.sum(ns.fft.idct(x, norm="ortho") ** 2)), V5
)
case("dct_roundtrip", lambda ns: lambda x: ns.fft.idctn(ns.fft.dctn(x)), M34, tol=NTOL)
