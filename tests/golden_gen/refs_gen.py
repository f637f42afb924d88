"""Record what JAX's mutable array references do into ``tests/golden/refs.json`` (read by
``tests/test_refs.py``): ``probes(ns)`` runs each case (``ns`` holds ``jax``, ``jnp``, ``np``
and ``ref``, JAX's or spmd's) and describes its result as plain data: arrays by dtype, shape,
weak type and values, jaxprs and reprs by their text, errors by their class.

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/refs_gen.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "golden" / "refs.json"


def show(ns, v):
    """``v`` as plain data (see the module docstring)."""
    if isinstance(v, (tuple, list)):
        return [show(ns, x) for x in v]
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, ns.jax.Array):
        a = ns.np.asarray(v)
        return {
            "dtype": a.dtype.name,
            "shape": list(a.shape),
            "weak_type": bool(getattr(v, "weak_type", False)),
            "values": a.ravel().tolist(),
        }
    if isinstance(v, float):
        return {"float": v}
    return {"text": str(v)}


def _f(r, x):
    r[...] = r[...] * x
    return x + 1


def _square_into_fresh_ref(ns, x):
    r = ns.jax.new_ref(ns.jnp.zeros_like(x))
    r[...] += x * x
    return ns.jax.freeze(r)


def _indexed_updates(ns, x):
    r = ns.jax.new_ref(x)
    r[0] = r[0] * 3.0
    r[1:] += r[:2] * x[0]
    return ns.jax.freeze(r).sum()


def _first_then_all(ns, x):
    r = ns.jax.new_ref(ns.jnp.zeros((3,)))
    r[0] = x[0]
    r[...] += x * x
    return ns.jax.freeze(r)


def _reads_writes(r):
    a = r[0]
    b = r[1:]
    r[0] = 1.0
    r[1:] = b * 2
    r[1:] += 1.0
    r[0] += 2.0
    return a


def _weak_ref_written(ns, x):
    # A ref made from a Python scalar (weak type) and written a strong value: eagerly its reads
    # keep the ref's (weak) type, while its repr shows the strong value stored.
    r = ns.jax.new_ref(0.0)
    r[...] += x
    return [r[...], repr(r), ns.jax.freeze(r)]


def _eager(ns):
    jax, jnp = ns.jax, ns.jnp
    r = jax.new_ref(jnp.arange(3.0))
    r[...] += 1
    after_add = [r[...], jax.freeze(r)]
    r[0] = 5.0
    r[1:] = jnp.array([7.0, 8.0])
    m = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
    return {
        "add_in_place": after_add,
        "index_writes": repr(r),
        "index_reads": [m[0, 1:], m[:, 0], m[1], m[-1], m[::2], m[..., 2]],
        "traced_index_read": jax.jit(lambda m, i: m[i])(m, 2),
        "repr_weak_float": repr(jax.new_ref(1.0)),
        "repr_weak_int": repr(jax.new_ref(1)),
        "repr_int": repr(jax.new_ref(jnp.arange(3))),
        "repr_2d": repr(jax.new_ref(jnp.ones((2, 2)))),
        "typeof": [str(jax.typeof(jax.new_ref(1.0))), str(jax.typeof(m))],
        "attributes": [list(m.shape), m.dtype.name, m.ndim, m.size, len(m)],
        "is_ref_not_array": [isinstance(m, jax.Ref), isinstance(m, jax.Array)],
        "freeze_of_array": jax.freeze(jnp.ones(2)),
        "freeze_twice": (lambda q: [jax.freeze(q), jax.freeze(q)])(jax.new_ref(2.0)),
        "write_py_float_into_f32": (lambda q: (q.__setitem__(0, 2.0), repr(q))[1])(
            jax.new_ref(jnp.ones(3))
        ),
        "write_forgets_weak_type": (lambda q: (q.__setitem__(..., 2.0), repr(q))[1])(
            jax.new_ref(1.0)
        ),
        "read_after_write_keeps_ref_type": _weak_ref_written(ns, jnp.float32(1)),
        "api_swap": (lambda q: [ns.ref.swap(q, 0, 9.0), repr(q)])(jax.new_ref(jnp.ones(3))),
        "api_addupdate": (lambda q: [ns.ref.addupdate(q, 0, 9.0), repr(q)])(
            jax.new_ref(jnp.ones(3))
        ),
        "api_get_set": (lambda q: [ns.ref.set(q, (), jnp.full(3, 4.0)), ns.ref.get(q, 1)])(
            jax.new_ref(jnp.ones(3))
        ),
    }


def _write_then_read(q, x):
    q[...] = q[...] + x
    return q[...]


def _jit(ns):
    jax, jnp = ns.jax, ns.jnp
    r = jax.new_ref(jnp.arange(3.0))
    first = jax.jit(_f)(r, 2.0)
    second = jax.jit(_f)(r, 3.0)
    c = jax.new_ref(jnp.zeros(2))

    @jax.jit
    def closes_over(x):
        c[...] += x
        return x * 2

    out = closes_over(jnp.ones(2))
    out2 = closes_over(jnp.ones(2))
    return {
        "mutates_argument": [first, second, repr(r)],
        "mutates_closed_over": [out, out2, repr(c)],
        "fresh_ref_inside": jax.jit(lambda x: _square_into_fresh_ref(ns, x))(jnp.arange(3.0)),
        "empty_ref": jax.jit(
            lambda: jax.freeze(jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32)))
        )(),
        "scalar_ref_argument": jax.jit(lambda q: q[...] + 1)(jax.new_ref(1.0)),
        "written_ref_reads_strong": [
            jax.jit(_write_then_read)(jax.new_ref(0.0), jnp.ones((), jnp.float32)),
            jax.jit(lambda x: _write_then_read(jax.new_ref(0.0), x))(jnp.ones((), jnp.float32)),
            jax.jit(lambda: jax.freeze(jax.new_ref(0.0)))(),
            jax.jit(
                lambda: (lambda q: (q.__setitem__(..., 2.0), jax.freeze(q))[1])(jax.new_ref(0.0))
            )(),  # fmt: skip
        ],
        "nested_jit": (lambda q: [jax.jit(lambda q: jax.jit(_f)(q, 2.0))(q), repr(q)])(
            jax.new_ref(jnp.ones(2))
        ),
    }


def _jaxprs(ns):
    jax, jnp = ns.jax, ns.jnp
    r = jax.new_ref(jnp.arange(3.0))
    m = jax.new_ref(jnp.ones((3, 4)))
    c = jax.new_ref(jnp.zeros(2))
    mj = jax.make_jaxpr
    return {
        "argument_get_swap": mj(_f)(r, 2.0),
        "new_ref_freeze": mj(lambda x: _square_into_fresh_ref(ns, x))(jnp.ones(3)),
        "indexed_reads_writes": mj(_reads_writes)(r),
        "two_d_indices": mj(lambda q: (q[0, 1:], q[:, 0], q[1], q[-1], q[::2], q[..., 0]))(m),
        "traced_index": mj(lambda q, i: q[i])(m, 1),
        "array_index": mj(lambda q: q[jnp.array([0, 2])])(m),
        "empty_ref": mj(
            lambda: jax.freeze(jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32)))
        )(),
        "free_ref": mj(lambda x: (jax.free_ref(jax.new_ref(x)), x)[1])(1.0),
        "api_addupdate": mj(lambda q: ns.ref.addupdate(q, ..., jnp.ones(3)))(r),
        "api_set": mj(lambda q: ns.ref.set(q, 1, 2.0))(r),
        "api_get": mj(lambda q: ns.ref.get(q))(r),
        "api_swap_used": mj(lambda q: ns.ref.swap(q, 0, 2.0) * 2)(r),
        "jit_of_ref": mj(jax.jit(lambda q: q.__setitem__(..., q[...] + 1.0)))(r),
        "closed_over": mj(lambda x: c.__setitem__(..., x))(jnp.ones(2)),
        "jit_closing_over_ref": mj(jax.jit(lambda x: c.__setitem__(..., c[...] + x)))(jnp.ones(2)),
        "vmap_fresh_ref": mj(jax.vmap(lambda x: _first_then_all(ns, x)))(jnp.ones((2, 3))),
        "jvp_fresh_ref": mj(
            lambda x, t: jax.jvp(lambda x: _square_into_fresh_ref(ns, x), (x,), (t,))
        )(jnp.ones(3), jnp.ones(3)),
        "jvp_indexed_write": mj(lambda x, t: jax.jvp(lambda x: _first_then_all(ns, x), (x,), (t,)))(
            jnp.ones(3), jnp.ones(3)
        ),
        "jvp_free_ref": mj(
            lambda x, t: jax.jvp(lambda x: (jax.free_ref(jax.new_ref(x)), x * 2)[1], (x,), (t,))
        )(1.0, 1.0),
    }


def _transforms(ns):
    jax, jnp = ns.jax, ns.jnp
    x3 = jnp.array([1.0, 2.0, 3.0])
    return {
        "grad_fresh_ref": jax.grad(lambda x: _square_into_fresh_ref(ns, x).sum())(x3),
        "grad_indexed": jax.grad(lambda x: _indexed_updates(ns, x))(x3),
        "grad_first_then_all": jax.grad(lambda x: (_first_then_all(ns, x) ** 2).sum())(x3),
        "jvp_indexed": list(jax.jvp(lambda x: _indexed_updates(ns, x), (x3,), (jnp.ones(3),))),
        "jit_grad": jax.jit(jax.grad(lambda x: _square_into_fresh_ref(ns, x).sum()))(x3),
        "grad_jit_inside": jax.grad(lambda x: jax.jit(lambda x: _indexed_updates(ns, x))(x))(x3),
        "grad_ref_not_differentiated": jax.grad(lambda x, q: (q[...] * x).sum())(
            1.0, jax.new_ref(jnp.arange(3.0))
        ),
        "vmap_fresh_ref": jax.vmap(lambda x: _square_into_fresh_ref(ns, x))(
            jnp.arange(6.0).reshape(2, 3)
        ),
        "vmap_indexed": jax.vmap(lambda x: _indexed_updates(ns, x))(jnp.arange(6.0).reshape(2, 3)),
        "vmap_first_then_all": jax.vmap(lambda x: _first_then_all(ns, x))(
            jnp.arange(6.0).reshape(2, 3)
        ),
        "vmap_ref_read_unbatched": jax.vmap(lambda x, q: q[...] * x, in_axes=(0, None))(
            jnp.arange(2.0), jax.new_ref(jnp.arange(3.0))
        ),
        "vmap_ref_batched_argument": jax.vmap(lambda q: q[...] * 2)(
            jax.new_ref(jnp.arange(6.0).reshape(2, 3))
        ),
        "vmap_grad": jax.vmap(jax.grad(lambda x: _indexed_updates(ns, x)))(
            jnp.arange(6.0).reshape(2, 3)
        ),
        "grad_vmap": jax.grad(lambda x: jax.vmap(lambda x: _indexed_updates(ns, x))(x).sum())(
            jnp.arange(6.0).reshape(2, 3)
        ),
    }


def _fori_writes(ns):
    r = ns.jax.new_ref(ns.jnp.zeros(3))

    def body(i, c):
        r[i] = c * 2.0
        return c + 1.0

    out = ns.jax.lax.fori_loop(0, 3, body, 1.0)
    return out, ns.jax.freeze(r)


def _scan_accumulates(ns, x):
    r = ns.jax.new_ref(0.0)

    def body(c, xi):
        r[...] += xi
        return c, r[...]

    _, ys = ns.jax.lax.scan(body, 0.0, x)
    return ys, ns.jax.freeze(r)


def _cond_writes(ns, p):
    r = ns.jax.new_ref(ns.jnp.zeros(2))

    def a():
        r[0] = 1.0

    def b():
        r[1] = 2.0

    ns.jax.lax.cond(p, a, b)
    return ns.jax.freeze(r)


def _ref_inside_scan_body(ns, x):
    def body(c, xi):
        r = ns.jax.new_ref(c)
        r[...] += xi * xi
        return ns.jax.freeze(r), c

    return ns.jax.lax.scan(body, 0.0, x)


def _doubles_in_jit(ns, x):
    r = ns.jax.new_ref(x)
    ns.jax.jit(lambda r: r.__setitem__(..., r[...] * 2))(r)
    return ns.jax.freeze(r)


def _values(v, np):
    """Values only (weak types aside: scan's results differ in weak type)."""
    return [np.asarray(x).tolist() for x in v]


def _loops(ns):
    jax, jnp, np = ns.jax, ns.jnp, ns.np
    x4 = jnp.arange(4.0)
    x23 = jnp.arange(6.0).reshape(2, 3)
    return {
        "fori_eager": _fori_writes(ns),
        "fori_jit": jax.jit(lambda: _fori_writes(ns))(),
        "fori_jaxpr": jax.make_jaxpr(lambda: _fori_writes(ns))(),
        "scan_eager": _values(_scan_accumulates(ns, x4), np),
        "scan_eager_types": _scan_accumulates(ns, x4),
        "scan_jit_types": jax.jit(lambda x: _scan_accumulates(ns, x))(x4),
        "scan_jit": _values(jax.jit(lambda x: _scan_accumulates(ns, x))(x4), np),
        "scan_jaxpr": jax.make_jaxpr(lambda x: _scan_accumulates(ns, x))(x4),
        "cond_eager": [_cond_writes(ns, True), _cond_writes(ns, False)],
        "cond_jit": jax.jit(lambda p: _cond_writes(ns, p))(False),
        "cond_jaxpr": jax.make_jaxpr(lambda p: _cond_writes(ns, p))(True),
        "vmap_scan": _values(jax.vmap(lambda x: _scan_accumulates(ns, x))(x23), np),
        "ref_inside_scan_body_grad": jax.grad(lambda x: _ref_inside_scan_body(ns, x)[0])(
            jnp.arange(3.0)
        ),
        "ref_inside_scan_body_vmap": _values(
            jax.vmap(lambda x: _ref_inside_scan_body(ns, x))(x23), np
        ),
        "vmap_of_jit_fresh_ref": jax.vmap(jax.jit(lambda x: _square_into_fresh_ref(ns, x)))(x23),
        "vmap_ref_into_jit": jax.vmap(lambda x: _doubles_in_jit(ns, x))(x23),
        "vmap_ref_argument_into_jit": jax.vmap(lambda q: jax.jit(lambda q: q[...] * 2)(q))(
            jax.new_ref(x23)
        ),
        "vmap_empty_ref": jax.jit(
            jax.vmap(
                lambda x: jax.freeze(jax.empty_ref(jax.ShapeDtypeStruct((3,), jnp.float32))) + x
            )
        )(x23),
    }


def _fori_powers(ns, x):
    r = ns.jax.new_ref(x)

    def body(i, c):
        r[...] = r[...] * x
        return c

    ns.jax.lax.fori_loop(0, 3, body, 0.0)
    return ns.jax.freeze(r)


def _while_powers(ns, x):
    r = ns.jax.new_ref(x)

    def body(i):
        r[...] = r[...] * x
        return i + 1

    ns.jax.lax.while_loop(lambda i: i < 3, body, 0)
    return ns.jax.freeze(r)


def _cond_outer_ref(ns, x):
    r = ns.jax.new_ref(ns.jnp.zeros(2))

    def a():
        r[0] = x[0] * 3.0

    def b():
        r[1] = x[1]

    ns.jax.lax.cond(x[0] > 0, a, b)
    return ns.jax.freeze(r)


def _nested_scans(ns, x):
    r = ns.jax.new_ref(0.0)

    def outer(c, xi):
        def inner(c2, xj):
            r[...] += xi * xj
            return c2, ()

        ns.jax.lax.scan(inner, 0.0, x)
        return c, ()

    ns.jax.lax.scan(outer, 0.0, x)
    return ns.jax.freeze(r)


def _outer_ref_derivatives(ns):
    """Derivatives through loops, branches and jits that write into a Ref made outside them."""
    jax, jnp, np = ns.jax, ns.jnp, ns.np
    two = jnp.ones(2) * 2
    return {
        "grad_scan": jax.grad(lambda x: _scan_accumulates(ns, x)[0].sum())(jnp.arange(4.0)),
        "jvp_scan": _values(
            [
                t
                for pair in jax.jvp(
                    lambda x: _scan_accumulates(ns, x), (jnp.arange(3.0),), (jnp.ones(3),)
                )
                for t in pair
            ],
            np,
        ),  # fmt: skip
        "grad_fori": jax.grad(lambda x: _fori_powers(ns, x).sum())(two),
        "jit_grad_fori": jax.jit(jax.grad(lambda x: _fori_powers(ns, x).sum()))(two),
        "grad_jit_fori": jax.grad(jax.jit(lambda x: _fori_powers(ns, x).sum()))(two),
        "vmap_grad_fori": jax.vmap(jax.grad(lambda x: _fori_powers(ns, x).sum()))(
            jnp.stack([two, two + 1])
        ),
        "grad_vmap_fori": jax.grad(lambda x: jax.vmap(lambda x: _fori_powers(ns, x))(x).sum())(
            jnp.stack([two, two + 1])
        ),
        "jvp_while": list(jax.jvp(lambda x: _while_powers(ns, x), (two,), (jnp.ones(2),))),
        "grad_cond": jax.grad(lambda x: _cond_outer_ref(ns, x).sum())(jnp.array([1.0, 2.0])),
        "grad_cond_other_branch": jax.grad(lambda x: _cond_outer_ref(ns, x).sum())(
            jnp.array([-1.0, 2.0])
        ),
        "grad_jit_of_outer_ref": jax.grad(lambda x: _doubles_in_jit(ns, x).sum())(jnp.ones(3)),
        "grad_nested_scans": jax.grad(lambda x: _nested_scans(ns, x))(jnp.arange(3.0)),
        "grad_stop_gradient_of_read": jax.grad(
            lambda x: (lambda q: jax.lax.stop_gradient(q[...]).sum() + jax.freeze(q).sum())(
                jax.new_ref(x)
            )
        )(jnp.ones(2)),
        "grad_checkpoint": jax.grad(
            jax.checkpoint(lambda x: (jax.freeze(jax.new_ref(x)) ** 2).sum())
        )(jnp.ones(2)),
        "grad_int_ref": jax.grad(lambda x: (jax.freeze(jax.new_ref(jnp.arange(2))) * x).sum())(1.0),
    }


def _indexing(ns):
    """Array and traced indices: repeated indices, indices out of range under jit."""
    jax, jnp = ns.jax, ns.jnp

    def set_repeated(x):
        q = jax.new_ref(jnp.zeros((3,)))
        q[jnp.array([0, 0, 2])] = x
        return jax.freeze(q)

    def add_repeated():
        q = jax.new_ref(jnp.zeros(2))
        ns.ref.addupdate(q, jnp.array([0, 0]), jnp.ones(2))
        return q[...]

    def set_traced(i):
        q = jax.new_ref(jnp.arange(3.0))
        jax.jit(lambda q, i: q.__setitem__(i, 9.0))(q, i)
        return q[...]

    read = jax.jit(lambda q, i: q[i])
    return {
        "set_repeated_array_index": set_repeated(jnp.array([1.0, 2.0, 3.0])),
        "addupdate_repeated_array_index": add_repeated(),
        "traced_index_out_of_range": read(jax.new_ref(jnp.arange(3.0)), 7),
        "traced_index_negative": read(jax.new_ref(jnp.arange(3.0)), -1),
        "traced_set_out_of_range": set_traced(7),
        "array_index_read": jax.new_ref(jnp.arange(6.0).reshape(3, 2))[jnp.array([2, 0])],
    }


def _vmap_axes(ns):
    """vmap over a Ref argument's other axes, and at batched (traced) indices."""
    jax, jnp = ns.jax, ns.jnp

    def m():
        return jax.new_ref(jnp.arange(6.0).reshape(2, 3))

    def write_row0(r, x):
        r[0] = x

    def then(f, q):
        return [f(q), jax.freeze(q)]

    def set_at(r, i):
        r[i] = 5.0

    def add_at(r, i, x):
        ns.ref.addupdate(r, (i, 1), x)

    return {
        "in_axes_1_read": jax.vmap(lambda r: r[...] * 2, in_axes=1)(m()),
        "in_axes_1_index_read": jax.vmap(lambda r: r[0], in_axes=1)(m()),
        "in_axes_1_write": then(
            lambda q: jax.vmap(write_row0, in_axes=(1, 0))(q, jnp.array([7.0, 8, 9])), m()
        ),
        "in_axes_0_write": then(lambda q: jax.vmap(write_row0)(q, jnp.array([7.0, 8])), m()),
        "write_then_read_axis_1": jax.vmap(
            lambda r, x: (r.__setitem__(1, x), r[...])[1], in_axes=(1, 0)
        )(m(), jnp.array([1.0, 2.0, 3.0])),
        "batched_index_read_unbatched_ref": jax.vmap(lambda i, q: q[i], in_axes=(0, None))(
            jnp.array([1, 0]), m()
        ),
        "batched_index_write": then(
            lambda q: jax.vmap(set_at)(q, jnp.array([0, 2])), jax.new_ref(jnp.zeros((2, 3)))
        ),
        "batched_index_addupdate_axis_2": then(
            lambda q: jax.vmap(add_at, in_axes=(2, 0, 0))(
                q, jnp.array([0, 1]), jnp.array([10.0, 20.0])
            ),
            jax.new_ref(jnp.ones((2, 3, 2))),
        ),
        "jit_vmap_batched_index": jax.jit(jax.vmap(lambda r, i: r[i, 1:]))(
            jax.new_ref(jnp.arange(24.0).reshape(2, 3, 4)), jnp.array([2, 1])
        ),
    }


def _errors(ns):
    """Each case raises; the error's class is recorded."""
    jax, jnp = ns.jax, ns.jnp

    def ref():
        return jax.new_ref(jnp.arange(3.0))

    def write(v):
        return lambda q: q.__setitem__(..., v)

    return {
        "jit_returns_argument_ref": lambda: jax.jit(lambda q: q)(ref()),
        "jit_returns_new_ref": lambda: jax.jit(lambda x: jax.new_ref(x))(1.0),
        "make_jaxpr_returns_ref": lambda: jax.make_jaxpr(lambda q: q)(ref()),
        "jit_same_ref_twice": lambda: (lambda q: jax.jit(lambda a, b: a[...] + b[...])(q, q))(
            ref()
        ),
        "jit_same_ref_in_pytree": lambda: (lambda q: jax.jit(lambda t: t[0][...])((q, q)))(ref()),
        "write_wrong_shape": lambda: write(jnp.ones(4))(ref()),
        "write_wrong_shape_jit": lambda: jax.jit(write(jnp.ones(4)))(ref()),
        "write_scalar_not_broadcast": lambda: write(1.0)(ref()),
        "write_wrong_dtype": lambda: write(jnp.ones(3, jnp.int32))(ref()),
        "write_wrong_dtype_jit": lambda: jax.jit(write(jnp.ones(3, jnp.int32)))(ref()),
        "write_py_int_into_f32": lambda: ref().__setitem__(0, 2),
        "addupdate_wrong_shape": lambda: ns.ref.addupdate(ref(), ..., 1.0),
        "read_out_of_bounds": lambda: ref()[5],
        "write_out_of_bounds": lambda: ref().__setitem__(3, 1.0),
        "too_many_indices": lambda: ref()[0, 0],
        "new_ref_of_list": lambda: jax.new_ref([1.0, 2.0]),
        "empty_ref_eager": lambda: jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32)),
        "grad_wrt_ref": lambda: jax.grad(lambda q: q[...].sum())(ref()),
        "grad_while_dynamic_trip_count": lambda: jax.grad(lambda x: _while_powers(ns, x).sum())(
            jnp.ones(2)
        ),
        "vmap_batched_write_unbatched_ref": lambda: jax.vmap(write_b, in_axes=(0, None))(
            jnp.ones((2, 3)), ref()
        ),
        "vmap_write_unbatched_ref": lambda: jax.vmap(
            lambda x, q: q.__setitem__(..., q[...] + 1.0), in_axes=(0, None)
        )(jnp.ones(2), ref()),
        "ref_plus_one": lambda: ref() + 1,
        "grad_write_into_closed_over_ref": lambda: jax.grad(write_twice_into(ref()))(jnp.ones(3)),
        "jvp_write_into_closed_over_ref": lambda: jax.jvp(
            write_twice_into(ref()), (jnp.ones(3),), (jnp.ones(3),)
        ),
        "grad_write_into_ref_argument": lambda: jax.grad(write_into)(jnp.ones(3), ref()),
        "jit_grad_write_into_ref_argument": lambda: jax.jit(jax.grad(write_into))(
            jnp.ones(3), ref()
        ),
        "jacfwd_of_fresh_ref": lambda: jax.jacfwd(lambda x: jax.freeze(jax.new_ref(x)) ** 2)(
            jnp.ones(2)
        ),
        "vmap_cond_batched_predicate": lambda: jax.vmap(
            lambda x: (
                lambda q: (
                    jax.lax.cond(x > 0, lambda: q.__setitem__(0, x), lambda: None),
                    jax.freeze(q),
                )[1]
            )(jax.new_ref(jnp.zeros(2)))
        )(jnp.arange(2.0) - 0.5),
    }


def write_into(x, q):
    q[...] = x * 2
    return q[...].sum()


def write_twice_into(q):
    return lambda x: write_into(x, q)


def write_b(x, q):
    q[...] = x


def probes(ns) -> dict:
    """Every case's description: ``{group: {name: data}}``."""
    out = {}
    groups = [("eager", _eager), ("jit", _jit), ("jaxpr", _jaxprs), ("ad", _transforms)]
    groups += [("loops", _loops), ("outer_ref_ad", _outer_ref_derivatives)]
    for group, fn in groups + [("indexing", _indexing), ("vmap_axes", _vmap_axes)]:
        out[group] = {k: show(ns, v) for k, v in fn(ns).items()}
    errors = {}
    for name, case in _errors(ns).items():
        try:
            case()
            errors[name] = "no error"
        except Exception as err:  # noqa: BLE001 - the error class is the golden value
            errors[name] = type(err).__name__
    out["errors"] = errors
    return out


if __name__ == "__main__":
    import types

    import jax
    import jax.numpy as jnp
    import jax.ref
    import numpy as np

    jax.config.update("jax_platforms", "cpu")
    ns = types.SimpleNamespace(jax=jax, jnp=jnp, np=np, ref=jax.ref)
    record = {"jax_version": jax.__version__, "probes": probes(ns)}
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)
