"""The checkify cases, run with JAX (tests/golden_gen/checkify_gen.py records them in
tests/golden/checkify.json) and with spmd (tests/test_checkify.py compares).

``run(jax, checkify)`` -> {case: record}. A record holds what the case shows: ``get`` (the
error's message or None), ``out`` (result values as nested lists), or ``raises`` (the error
class) and ``message`` (its text, where JAX's wording is compared).
"""

from __future__ import annotations

import numpy as np


def _values(x):
    if isinstance(x, (tuple, list)):
        return [_values(v) for v in x]
    if x is None:
        return None
    a = np.asarray(x)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": a.astype(float).tolist()}


def run(jax, checkify):
    jnp, lax = jax.numpy, jax.lax
    A = jnp.array
    out = {}

    def case(name, fn, kind="get", message=True):
        try:
            r = fn()
            if kind == "get":
                out[name] = {"get": r[0].get(), "out": _values(r[1])}
            elif kind == "value":
                out[name] = {"out": _values(r)}
            else:
                out[name] = {"text": r}
        except Exception as e:  # noqa: BLE001
            out[name] = {"raises": type(e).__name__}
            if message:
                out[name]["message"] = str(e)

    def pos(x):
        checkify.check(jnp.all(x > 0), "x must be positive, got {}", x)
        return jnp.log(x)

    ck = checkify.checkify
    # user checks, eager and jitted
    case("user:fail", lambda: ck(pos)(-jnp.ones(3)))
    case("user:pass", lambda: ck(pos)(jnp.ones(3)))
    case("user:throw", lambda: ck(pos)(-jnp.ones(3))[0].throw(), "value")
    case("user:throw_ok", lambda: ck(pos)(jnp.ones(3))[0].throw(), "value")
    case("user:str", lambda: str(ck(pos)(-jnp.ones(3))[0]), "text")
    case("user:str_ok", lambda: str(ck(pos)(jnp.ones(3))[0]), "text")
    case("user:jit_of_checkify", lambda: jax.jit(ck(pos))(-jnp.ones(3)))
    case("user:checkify_of_jit", lambda: ck(jax.jit(pos))(A([2.0, -1.0])))
    case(
        "user:kwargs",
        lambda: ck(lambda x: checkify.check(x > 0, "x={x} y={y:.2f}", x=x, y=2 * x))(A(-1.5)),
    )
    case("user:positional", lambda: ck(lambda x: checkify.check(x > 0, "{1} {0}", x, x + 1))(A(-1)))
    case(
        "user:int_array", lambda: ck(lambda x: checkify.check(jnp.all(x > 0), "{}", x))(A([1, -2]))
    )
    case("user:bool_payload", lambda: ck(lambda x: checkify.check(x > 0, "{}", x > 0))(A(-1.5)))
    case("user:python_pred", lambda: ck(lambda x: checkify.check(False, "bad {}", x))(A(1.0)))

    def two(x):
        checkify.check(x > 0, "first {}", x)
        checkify.check(x > 1, "second {}", x)
        return x

    case("user:first_wins", lambda: ck(two)(A(-1.0)))
    case("user:second", lambda: ck(two)(A(0.5)))
    case("user:disabled", lambda: ck(pos, errors=checkify.nan_checks)(-A([1.0])))
    case("user:errors_list", lambda: ck(pos, errors=[checkify.user_checks])(A([1.0])))
    # check outside checkify
    case("outside:eager_fail", lambda: pos(-jnp.ones(3)))
    case("outside:eager_pass", lambda: pos(jnp.ones(3)), "value")
    case("outside:jit", lambda: jax.jit(pos)(jnp.ones(3)))
    case(
        "outside:grad",
        lambda: jax.grad(lambda x: (checkify.check(x > 0, "neg {}", x), x * x)[1])(A(-1.0)),
    )
    case(
        "outside:vmap",
        lambda: jax.vmap(lambda x: checkify.check(x > 0, "neg {}", x))(A([1.0, -1.0])),
    )
    case("outside:jit_throw", lambda: jax.jit(lambda x: ck(pos)(x)[0].throw())(A([1.0])))
    case("outside:jit_get", lambda: jax.jit(lambda x: ck(pos)(x)[0].get())(A([1.0])), message=False)
    # check_error
    case(
        "check_error:checkify",
        lambda: ck(lambda e: checkify.check_error(e))(ck(pos)(-jnp.ones(3))[0]),
    )
    case("check_error:eager", lambda: checkify.check_error(ck(pos)(-jnp.ones(3))[0]))
    case("check_error:jit", lambda: jax.jit(checkify.check_error)(ck(pos)(-jnp.ones(3))[0]))
    case(
        "check_error:checkify_of_jit",
        lambda: ck(lambda x: (jax.jit(checkify.check_error)(ck(pos)(x)[0]), x)[1])(-jnp.ones(3)),
    )
    case("check_error:eager_ok", lambda: checkify.check_error(ck(pos)(jnp.ones(3))[0]), "value")
    # automatic checks
    nan, idx, div = checkify.nan_checks, checkify.index_checks, checkify.div_checks
    flt = checkify.float_checks
    case("nan:log", lambda: ck(jnp.log, errors=nan)(A(-1.0)))
    case("nan:sin_inf", lambda: ck(jnp.sin, errors=nan)(A(jnp.inf)))
    case("nan:ok", lambda: ck(jnp.log, errors=nan)(A(2.0)))
    case("nan:mul", lambda: ck(lambda x: x * 0 * jnp.inf, errors=flt)(A(1.0)))
    case("nan:reduce_sum", lambda: ck(jnp.sum, errors=flt)(A([jnp.inf, -jnp.inf])))
    case("nan:sqrt", lambda: ck(jnp.sqrt, errors=flt)(A(-1.0)))
    case("nan:pow", lambda: ck(lambda x: x**0.5, errors=flt)(A(-1.0)))
    case("nan:sub", lambda: ck(lambda x: x - x, errors=flt)(A(jnp.inf)))
    case("nan:cumsum", lambda: ck(jnp.cumsum, errors=flt)(A([jnp.inf, -jnp.inf])))
    case(
        "nan:select_not_checked",
        lambda: ck(lambda x: jnp.where(x > 0, x, jnp.nan), errors=flt)(A(-1.0)),
    )
    case("nan:grad_mul", lambda: ck(jax.grad(lambda x: x / (1 + jnp.sqrt(x))), errors=nan)(A(0.0)))
    case(
        "nan:user_check_first",
        lambda: ck(
            lambda x: (jnp.log(x), checkify.check(x > 0, "c {}", x))[0], errors=checkify.all_checks
        )(A(-1.0)),
    )
    case("div:int", lambda: ck(lambda x, y: x // y, errors=div)(A(1), A(0)))
    case("div:array", lambda: ck(lambda x, y: x // y, errors=div)(A([1, 2]), A([1, 0])))
    case("div:float", lambda: ck(lambda x, y: x / y, errors=div)(A(1.0), A(0.0)))
    case("div:float_checks", lambda: ck(lambda x, y: x / y, errors=flt)(A(0.0), A(0.0)))
    case("div:rem_not_checked", lambda: ck(lambda x, y: lax.rem(x, y), errors=div)(A(1), A(0)))
    case("div:ok", lambda: ck(lambda x, y: x // y, errors=div)(A(4), A(2)))
    case("oob:index", lambda: ck(lambda x, i: x[i], errors=idx)(jnp.arange(3.0), A(5)))
    case("oob:negative", lambda: ck(lambda x, i: x[i], errors=idx)(jnp.arange(3.0), A(-5)))
    case("oob:in_bounds", lambda: ck(lambda x, i: x[i], errors=idx)(jnp.arange(3.0), A(-1)))
    case("oob:axis1", lambda: ck(lambda x, i, j: x[i, j], errors=idx)(jnp.ones((3, 4)), A(1), A(7)))
    case("oob:scatter", lambda: ck(lambda x, i: x.at[i].set(1.0), errors=idx)(jnp.ones(3), A(4)))
    case(
        "oob:dynamic_slice",
        lambda: ck(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), errors=idx)(jnp.ones(3), A(2)),
    )
    case(
        "oob:dynamic_update_slice",
        lambda: ck(lambda x, i: lax.dynamic_update_slice(x, x[:2], (i,)), errors=idx)(
            jnp.ones(3), A(2)
        ),
    )
    case("oob:take", lambda: ck(lambda x, i: jnp.take(x, i), errors=idx)(jnp.ones(3), A(4)))
    case("oob:gather_array", lambda: ck(lambda x, i: x[i], errors=idx)(jnp.ones(3), A([0, 4, 9])))
    case(
        "oob:clip_mode",
        lambda: ck(lambda x, i: x.at[i].get(mode="clip"), errors=idx)(jnp.ones(3), A(9)),
    )
    # mapped
    xs = A([[1.0], [-1.0], [-2.0]])
    case("vmap:get", lambda: jax.vmap(ck(pos))(xs))
    case("vmap:throw", lambda: jax.vmap(ck(pos))(xs)[0].throw(), "value")
    case("vmap:nested", lambda: jax.vmap(jax.vmap(ck(pos)))(A([[[1.0], [-1.0]], [[-2.0], [1.0]]])))
    case("vmap:none", lambda: jax.vmap(ck(pos))(jnp.ones((3, 1))))

    def neg_or_oob(x, i):
        checkify.check(i >= 0, "neg {}", i)
        return x[i]

    case(
        "vmap:two_kinds",
        lambda: jax.vmap(ck(neg_or_oob, errors=checkify.all_checks))(
            jnp.ones((3, 5)), A([-1, 2, 100])
        ),
    )
    case(
        "vmap:two_kinds_throw",
        lambda: jax.vmap(ck(neg_or_oob, errors=checkify.all_checks))(
            jnp.ones((3, 5)), A([100, 2, -1])
        )[0].throw(),
        "value",
    )

    def two_user(x):
        checkify.check(x > -10, "A {}", x)
        checkify.check(x > 0, "B {}", x)
        return x

    for i, xs in enumerate(([-20.0, -1.0, 1.0], [-1.0, -20.0, 1.0], [-1.0, -2.0, -30.0])):
        case(
            f"vmap:throw_last_index{i}",
            lambda xs=xs: jax.vmap(ck(two_user))(A(xs))[0].throw(),
            "value",
        )
    case("checkify_of_vmap", lambda: ck(jax.vmap(pos))(A([[-1.0], [-3.0], [2.0]])))
    case(
        "checkify_of_vmap:index",
        lambda: ck(jax.vmap(lambda x, i: x[i]), errors=idx)(jnp.ones((3, 3)), A([1, 5, 7])),
    )

    # control flow
    def fc(x):
        def t(x):
            checkify.check(x > 0, "t fail {}", x)
            return x

        def e(x):
            checkify.check(x > 10, "e fail {}", x)
            return x * 2

        return lax.cond(x > 5, t, e, x)

    case("cond:false_branch", lambda: ck(fc)(A(3.0)))
    case("cond:ok", lambda: ck(fc)(A(30.0)))
    case(
        "cond:nan", lambda: ck(lambda x: lax.cond(x > 0, jnp.log, jnp.log, x), errors=nan)(A(-1.0))
    )

    def fs(x):
        def body(c, y):
            checkify.check(y < 3, "scan fail {}", y)
            return c + y, c

        return lax.scan(body, 0.0, x)

    case("scan:first_failure", lambda: ck(fs)(jnp.arange(6.0)))
    case("scan:ok", lambda: ck(fs)(jnp.arange(3.0)))

    def fw(x):
        def cond(c):
            checkify.check(c < 100, "cond fail {}", c)
            return c < 50

        def body(c):
            checkify.check(c < 7, "body fail {}", c)
            return c + 2

        return lax.while_loop(cond, body, x)

    case("while:body", lambda: ck(fw)(A(0)))
    case("while:cond", lambda: ck(fw)(A(200)))
    case("while:ok", lambda: ck(fw)(A(60)))
    case("jit:scan_in_jit", lambda: jax.jit(ck(fs))(jnp.arange(6.0)))
    case("jit:vmap_cond", lambda: jax.jit(jax.vmap(ck(fc)))(A([3.0, 30.0, -1.0])))

    # debug_check: a check under checkify, nothing outside
    def dbg(x):
        checkify.debug_check(jnp.all(x > 0), "dbg {}", x)
        return x

    case("debug_check:eager", lambda: dbg(-A([1.0])), "value")
    case("debug_check:jit", lambda: jax.jit(dbg)(-A([1.0])), "value")
    case("debug_check:checkify", lambda: ck(dbg)(-A([1.0])))
    case("debug_check:checkify_of_jit", lambda: ck(jax.jit(dbg))(-A([1.0])))

    # custom derivatives, remat, fori_loop
    @jax.custom_vjp
    def neg_grad(x):
        return x

    def bwd(_, g):
        checkify.check(g < 0, "gradient needs to be negative!")
        return (g,)

    neg_grad.defvjp(lambda x: (neg_grad(x), None), bwd)
    case("custom_vjp:grad_eager", lambda: jax.grad(neg_grad)(-1.0))
    case("custom_vjp:checkify_grad", lambda: ck(jax.grad(neg_grad))(A(-1.0)))
    case("custom_vjp:checkify_fwd", lambda: ck(neg_grad)(A(-1.0)))

    @jax.custom_jvp
    def cj(x):
        checkify.check(x > 0, "cj {}", x)
        return x

    cj.defjvp(lambda p, t: (cj(p[0]), t[0]))
    case("custom_jvp:checkify", lambda: ck(cj)(A(-1.0)))
    case("custom_jvp:checkify_grad", lambda: ck(jax.grad(cj))(A(-1.0)))
    case("remat", lambda: ck(jax.checkpoint(pos))(-A([1.0])))

    def fori(x):
        def body(i, c):
            checkify.check(c < 3, "fori {}", c)
            return c + 1

        return lax.fori_loop(0, 5, body, x)

    case("fori_loop", lambda: ck(fori)(A(0)))
    case("grad_of_checkify", lambda: jax.grad(lambda x: ck(pos)(x)[1].sum())(-A([1.0])), "value")
    # shard_map and pmap inside checkify: one error per device
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    P = jax.sharding.PartitionSpec
    sm = jax.shard_map(pos, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    x4 = A([1.0, 2.0, -3.0, -4.0])
    case("shard_map:get", lambda: ck(sm)(x4))
    case("shard_map:ok", lambda: ck(sm)(jnp.ones(4)))
    case("shard_map:throw", lambda: ck(sm)(x4)[0].throw(), "value")
    case("shard_map:jit", lambda: jax.jit(ck(sm))(x4))
    sm_log = jax.shard_map(jnp.log, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    case("shard_map:nan", lambda: ck(sm_log, errors=nan)(x4))

    def psum_check(x):
        checkify.check(lax.psum(x, "i")[0] > 0, "psum {}", x)
        return x

    sm_psum = jax.shard_map(psum_check, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    case("shard_map:psum", lambda: ck(sm_psum)(x4))
    case("pmap:checkify_of_pmap", lambda: ck(jax.pmap(pos))(x4[:, None]))
    case("pmap:pmap_of_checkify", lambda: jax.pmap(ck(pos))(x4[:, None]))
    case(
        "shard_map:of_checkify_bad_specs",
        lambda: jax.shard_map(ck(pos), mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x4),
        message=False,
    )

    # bad input
    case("bad:pred_int", lambda: checkify.check(A(1), "bad"))
    case("bad:pred_nonscalar", lambda: checkify.check(A([True, False]), "bad"))
    case("bad:pred_float", lambda: ck(lambda x: checkify.check(x, "bad"))(A(1.0)), message=False)
    case("bad:fmt_python_float", lambda: checkify.check(A(True), "bad {}", 1.0))
    case("bad:fmt_missing", lambda: ck(lambda x: checkify.check(x > 0, "{} {}", x))(A(-1.0)))
    case("bad:check_error", lambda: checkify.check_error(3))
    case("bad:errors_int", lambda: ck(pos, errors=3)(A([1.0])))
    case(
        "sets",
        lambda: sorted(
            [
                sorted(c.__name__ for c in s)
                for s in (
                    checkify.user_checks,
                    checkify.nan_checks,
                    checkify.index_checks,
                    checkify.div_checks,
                    checkify.float_checks,
                    checkify.automatic_checks,
                    checkify.all_checks,
                    checkify.all_checks - checkify.user_checks,
                    checkify.nan_checks | checkify.div_checks,
                )
            ]
        ),
        "text",
    )
    return out
