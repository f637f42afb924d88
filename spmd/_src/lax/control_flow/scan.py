"""``lax.scan``: the ``scan`` primitive, a loop over the leading axis of its ``xs``.

``scan_p`` operands are ``consts, init carry, xs``; its ``jaxpr`` maps
``(consts, carry, x) -> (carry, y)`` and the primitive returns the final carry and the stacked
``ys``. Constants the body closes over are hoisted into the leading operands. The kernel loops
in Python over the compiled body, writing the ``ys`` into preallocated arrays.

>>> from spmd import lax
>>> lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4))
(Array(6, dtype=int32), Array([0, 0, 1, 3], dtype=int32, weak_type=True))
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, JaxprEqn, ShapedArray, Var
from spmd._src.core_printing import typed_str
from spmd._src.errors import ConcretizationTypeError
from spmd._src.interpreters import ad, batching, reduction_states, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import callback, rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import common
from spmd._src.sharding import P

# ---------------------------------------------------------------------------------------------
# scan


def scan(
    f: Callable,
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``.

    Returns the final carry and the ``y``s stacked (a pytree like ``y``). ``xs`` may be a
    pytree, or None with ``length`` given; ``reverse`` scans from the end (the ``ys`` keep their
    positions). The carry must keep its structure and types.

    >>> lax.scan(lambda c, x: (c * x, c), 1.0, jnp.arange(1.0, 4.0))
    (Array(6., dtype=float32), Array([1., 1., 2.], dtype=float32))
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_leaves, init_tree = tu.tree_flatten(init)
    xs_leaves, xs_tree = tu.tree_flatten(xs)
    length = _infer_scan_length(xs_leaves, length)
    if config.jax_disable_jit:
        return _scan_in_python(f, init, xs_leaves, xs_tree, length, reverse)
    xs_avals = common.avals_of(xs_leaves, "scan")
    # (An x keeps the memory space of its stack: f32<host>[] from f32<host>[8].)
    x_avals = [
        ShapedArray(a.shape[1:], a.dtype, a.weak_type, memory_space=a.memory_space)
        for a in xs_avals
    ]
    init_avals = common.avals_of(init_leaves, "scan")
    # Shardings in types (Explicit mesh axes): the carry's as they are, an x's without the
    # scanned dimension.
    types = common.types_of(init_leaves) or common.types_of(xs_leaves)
    if types is not None:
        _check_xs_replicated(xs_leaves, xs_avals)
        types = [sharding_rules.type_sharding(x) for x in init_leaves] + [
            _drop_leading(sharding_rules.type_sharding(x), a.ndim)
            for x, a in zip(xs_leaves, xs_avals)
        ]
    closed, carry_out, ys_tree = _trace_scan_body(f, init_tree, xs_tree, init_avals, x_avals, types)
    carry_out_avals = tu.tree_leaves(carry_out)
    if tu.tree_structure(carry_out) != init_tree:
        common.check_carry_type("scan body", f, init_tree.unflatten(init_avals), carry_out)
    init_leaves, changed = common.promote_weak_inputs(init_leaves, init_avals, carry_out_avals)
    if changed:
        init_avals = common.avals_of(init_leaves, "scan")
        closed, carry_out, ys_tree = _trace_scan_body(
            f, init_tree, xs_tree, init_avals, x_avals, types
        )
    carry_types = None
    if types is not None:
        n = len(init_leaves)
        carry_types = (types[:n], [getattr(v, "sharding", None) for v in closed.jaxpr.outvars[:n]])
    common.check_carry_type("scan body", f, init_tree.unflatten(init_avals), carry_out, carry_types)
    num_carry = len(init_leaves)

    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    try:
        unroll = operator.index(unroll)
    except TypeError:
        raise TypeError(
            "The `unroll` argument to `scan` expects a concrete `int` or `bool` value."
        ) from None
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")

    jaxpr, consts = common.hoist_consts(closed)
    # A carry the body passes through unchanged is read-only: it becomes a constant.
    fwd = common.forwarding(jaxpr.jaxpr)
    n_consts = len(consts)
    move = [fwd[i] == n_consts + i for i in range(num_carry)]
    moved = [x for x, m in zip(init_leaves, move) if m]
    if any(move):
        j = jaxpr.jaxpr
        carry_vars = j.invars[n_consts : n_consts + num_carry]
        invars = (
            [v for v, m in zip(carry_vars, move) if m]
            + j.invars[:n_consts]
            + [v for v, m in zip(carry_vars, move) if not m]
            + j.invars[n_consts + num_carry :]
        )
        outvars = [v for v, m in zip(j.outvars, move) if not m] + j.outvars[num_carry:]
        jaxpr = ClosedJaxpr(core.Jaxpr([], invars, outvars, j.eqns, j.debug_info), [])
        consts = moved + consts
        init_leaves = [x for x, m in zip(init_leaves, move) if not m]
    n_consts, n_carry = len(consts), len(init_leaves)
    # A y the body passes through from its x is the xs array itself.
    fwd = common.forwarding(jaxpr.jaxpr)[n_carry:]
    y_fwd = [
        f - n_consts - n_carry if f is not None and f >= n_consts + n_carry else None for f in fwd
    ]
    if any(f is not None for f in y_fwd):
        keep = [True] * n_carry + [f is None for f in y_fwd]
        jaxpr = common.prune_outputs(jaxpr, keep)

    out = scan_p.bind(
        *consts,
        *init_leaves,
        *xs_leaves,
        jaxpr=jaxpr,
        length=length,
        reverse=bool(reverse),
        num_consts=n_consts,
        num_carry=n_carry,
        unroll=unroll,
    )
    carry_it = iter(out[:n_carry])
    moved_it = iter(moved)
    carry = [next(moved_it) if m else next(carry_it) for m in move]
    ys_it = iter(out[n_carry:])
    ys = [next(ys_it) if f is None else common.as_value(xs_leaves[f]) for f in y_fwd]
    return tu.tree_unflatten(init_tree, carry), tu.tree_unflatten(ys_tree, ys)


def _scan_in_python(f, init, xs_leaves, xs_tree, length, reverse):
    # With jit disabled, the body runs once per step in Python (as in JAX).
    if length == 0:
        raise ValueError(
            "zero-length scan is not supported in disable_jit() mode because the output type "
            "is unknown."
        )
    carry, ys = init, []
    steps = range(length - 1, -1, -1) if reverse else range(length)
    for i in steps:
        x = [lax_shape.index_in_dim(v, i, 0, keepdims=False) for v in xs_leaves]
        carry, y = f(carry, tu.tree_unflatten(xs_tree, x))
        ys.append(y)
    if reverse:
        ys.reverse()

    def stack(*vs):
        return lax_shape.concatenate([lax_shape.expand_dims(v, (0,)) for v in vs], 0)

    return carry, tu.tree_map(stack, *ys)


def _infer_scan_length(xs_leaves: list, length: Any) -> int:
    no_axis = [x for x in xs_leaves if not np.shape(x)]
    if no_axis:
        raise ValueError(
            "scan got value with no leading axis to scan over: "
            + ", ".join(str(x) for x in no_axis)
            + "."
        )
    lengths = [np.shape(x)[0] for x in xs_leaves]
    if length is not None:
        if isinstance(length, core.Tracer):
            raise ConcretizationTypeError(
                "The `length` argument to `scan` expects a concrete `int` value. For scan-like "
                "iteration with a dynamic length, use `while_loop` or `fori_loop`."
            )
        length = operator.index(length)
        if not all(length == n for n in lengths):
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {lengths}."
            )
        return length
    unique = sorted(set(lengths))
    if len(unique) > 1:
        raise ValueError(
            "scan got values with different leading axis sizes: "
            + ", ".join(str(n) for n in lengths)
            + "."
        )
    if not unique:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return unique[0]


def _drop_leading(s: Any, ndim: int) -> Any:
    if s is None:
        return None
    return s.with_spec(P(*s.spec._normalized(ndim)[1:]))


def _check_xs_replicated(xs_leaves: list, xs_avals: list) -> None:
    """On Explicit mesh axes the scanned dimension of every x must be unsharded (JAX 0.10
    raises ValueError: the body would see a different slice on each device)."""
    for i, (x, a) in enumerate(zip(xs_leaves, xs_avals)):
        s = sharding_rules.type_sharding(x)
        if s is not None and a.ndim and s.spec._normalized(a.ndim)[0] is not None:
            raise ValueError(
                f"scan: the 0th dimension of all xs should be replicated. Got {s.spec} for xs "
                f"leaf {i} of type {typed_str(a, s)}; reshard it (e.g. to P(None, ...)) first."
            )


def _trace_scan_body(f, init_tree, xs_tree, init_avals, x_avals, types=None):
    """The body as a jaxpr of (carry leaves, x leaves) -> (carry leaves, y leaves), the carry
    output (a pytree of avals) and the structure of the ys."""
    n_carry = len(init_avals)
    box = []

    def flat(*leaves):
        carry = tu.tree_unflatten(init_tree, leaves[:n_carry])
        x = tu.tree_unflatten(xs_tree, leaves[n_carry:])
        out = f(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            shown = tu.tree_map(lambda o: core.get_aval(o).str_short(False), out)
            raise TypeError(f"scan body output must be a pair, got {shown}.")
        c_leaves, c_tree = tu.tree_flatten(out[0])
        y_leaves, y_tree = tu.tree_flatten(out[1])
        for i, o in enumerate(c_leaves + y_leaves):
            if not core.valid_jaxtype(o):
                raise TypeError(
                    f"scan: output {i} of {common.fun_name(f)} is of type {type(o)}, which is "
                    "not a valid JAX type"
                )
        box.append((c_tree, y_tree, len(c_leaves)))
        return c_leaves + y_leaves

    args = (init_tree.unflatten(init_avals), xs_tree.unflatten(x_avals))
    debug = pe.DebugInfo("scan", common.fun_name(f), common.arg_names(f, args))
    closed = pe.trace_to_jaxpr(flat, list(init_avals) + list(x_avals), debug, types)
    c_tree, y_tree, nc = box[0]
    carry_out = tu.tree_unflatten(c_tree, closed.out_avals[:nc])
    return closed, carry_out, y_tree


def _scan_impl(*args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    consts, carry, xs = common.split3(args, num_consts, num_carry)
    body = core.jaxpr_as_numpy_fn(jaxpr)
    out_avals = jaxpr.out_avals
    ys = [np.empty((length, *a.shape), a.dtype) for a in out_avals[num_carry:]]
    for k in range(length):
        i = length - 1 - k if reverse else k
        outs = body(*consts, *carry, *[x[i] for x in xs])
        carry = outs[:num_carry]
        for y, o in zip(ys, outs[num_carry:]):
            y[i] = o
    carry = [np.asarray(c, dtype=a.dtype) for c, a in zip(carry, out_avals[:num_carry])]
    return carry + ys


def _scan_abstract_eval(*avals, jaxpr, length, reverse, num_consts, num_carry, unroll):
    in_avals = jaxpr.in_avals
    if len(avals) != len(in_avals):
        raise TypeError(
            f"scan: {len(avals)} operands, but the body takes {len(in_avals)} arguments"
        )
    consts, carry, xs = common.split3(avals, num_consts, num_carry)
    for a in xs:
        if not a.shape or a.shape[0] != length:
            raise TypeError(f"scan: xs operand {a.str_short()} does not have length {length}")
    got = consts + carry + [ShapedArray(a.shape[1:], a.dtype) for a in xs]
    if not common.typematches(got, in_avals):
        raise TypeError(
            f"scan: operand types {[a.str_short() for a in avals]} do not match the body's "
            f"input types {[a.str_short() for a in in_avals]}"
        )
    carry_out = jaxpr.out_avals[:num_carry]
    if not common.typematches(carry, carry_out):
        raise TypeError(
            f"scan: the carry types {[a.str_short() for a in carry]} differ from the body's "
            f"carry output types {[a.str_short() for a in carry_out]}"
        )
    # Stacked outputs are where the body leaves them (a slice in host memory: ys there too).
    ys = [
        ShapedArray((length, *a.shape), a.dtype, a.weak_type, memory_space=a.memory_space)
        for a in jaxpr.out_avals[num_carry:]
    ]
    return list(carry_out) + ys


def _scan_batch_rule(
    axis_data, vals, dims, *, jaxpr, length, reverse, num_consts, num_carry, unroll
):
    size = axis_data.size
    batched = [d is not None for d in dims]
    const_b, carry_b, xs_b = common.split3(batched, num_consts, num_carry)
    # A carry that comes out batched must go in batched: iterate to the fixed point.
    for _ in range(num_carry + 1):
        out_b = common.batched_outputs(jaxpr, axis_data, const_b + carry_b + xs_b)
        new = [a or b for a, b in zip(carry_b, out_b[:num_carry])]
        if new == carry_b:
            break
        carry_b = new
    ys_b = out_b[num_carry:]
    body = common.batch_jaxpr_at0(jaxpr, axis_data, const_b + carry_b + xs_b, carry_b + ys_b)
    consts, carry, xs = common.split3(vals, num_consts, num_carry)
    c_dims, k_dims, x_dims = common.split3(dims, num_consts, num_carry)
    consts = [common.move_to_front(x, d, size, b) for x, d, b in zip(consts, c_dims, const_b)]
    carry = [common.move_to_front(x, d, size, b) for x, d, b in zip(carry, k_dims, carry_b)]
    # The scanned axis stays in front of xs; the batch axis goes second.
    xs = [x if d is None else rules.moveaxis(x, d, 1) for x, d in zip(xs, x_dims)]
    out = scan_p.bind(
        *consts,
        *carry,
        *xs,
        jaxpr=body,
        length=length,
        reverse=reverse,
        num_consts=num_consts,
        num_carry=num_carry,
        unroll=unroll,
    )
    out_dims = [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]
    return out, out_dims


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    n_in = len(primals)
    num_ys = len(jaxpr.out_avals) - num_carry
    nz = [
        type(t) is not Zero and common.is_float(core.get_aval(p)) for p, t in zip(primals, tangents)
    ]
    const_nz, carry_nz, xs_nz = common.split3(nz, num_consts, num_carry)
    # A carry whose tangent comes out nonzero must go in nonzero: iterate to the fixed point.
    for _ in range(num_carry + 1):
        jvp, out_nz = common.jvp_jaxpr(
            jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * num_ys
        )
        new = [a or b for a, b in zip(carry_nz, out_nz[:num_carry])]
        if new == carry_nz:
            break
        carry_nz = new
    ncd, nkd, nxd = sum(const_nz), sum(carry_nz), sum(xs_nz)
    nyd = sum(out_nz[num_carry:])
    # jvp takes (consts, carry, xs, consts_dot, carry_dot, xs_dot) and returns
    # (carry, ys, carry_dot, ys_dot); scan wants (consts, consts_dot, carry, carry_dot, xs,
    # xs_dot) -> (carry, carry_dot, ys, ys_dot).
    c0, k0, x0 = 0, num_consts, num_consts + num_carry
    cd0, kd0, xd0 = n_in, n_in + ncd, n_in + ncd + nkd
    in_order = [
        *range(c0, k0),
        *range(cd0, kd0),
        *range(k0, x0),
        *range(kd0, xd0),
        *range(x0, n_in),
        *range(xd0, xd0 + nxd),
    ]
    n_out = num_carry + num_ys
    out_order = [
        *range(num_carry),
        *range(n_out, n_out + nkd),
        *range(num_carry, n_out),
        *range(n_out + nkd, n_out + nkd + nyd),
    ]
    jvp = common.permute(jvp, in_order, out_order)
    consts, init, xs = common.split3(primals, num_consts, num_carry)
    ct, kt, xt = common.split3(tangents, num_consts, num_carry)
    consts_dot = [t for t, z in zip(ct, const_nz) if z]
    init_dot = [ad.instantiate(t) for t, z in zip(kt, carry_nz) if z]
    xs_dot = [t for t, z in zip(xt, xs_nz) if z]
    out = scan_p.bind(
        *consts,
        *consts_dot,
        *init,
        *init_dot,
        *xs,
        *xs_dot,
        jaxpr=jvp,
        length=length,
        reverse=reverse,
        num_consts=num_consts + ncd,
        num_carry=num_carry + nkd,
        unroll=unroll,
    )
    carry, carry_dot, ys, ys_dot = (
        out[:num_carry],
        out[num_carry : num_carry + nkd],
        out[num_carry + nkd : num_carry + nkd + num_ys],
        out[num_carry + nkd + num_ys :],
    )
    primal_out = list(carry) + list(ys)
    dots = iter(list(carry_dot) + list(ys_dot))
    out_avals = _scan_abstract_eval(
        *[core.get_aval(p) for p in primals],
        jaxpr=jaxpr,
        length=length,
        reverse=reverse,
        num_consts=num_consts,
        num_carry=num_carry,
        unroll=unroll,
    )
    tangent_out = [
        next(dots) if z else Zero(ad.tangent_aval(a))
        for a, z in zip(out_avals, carry_nz + out_nz[num_carry:])
    ]
    return primal_out, tangent_out


def _scan_partial_eval(eqn: JaxprEqn, unknowns: Sequence[bool]):
    """Split a scan into a known scan (the known carries and ys, plus the residuals: stacked
    per iteration, or as they are when they are loop constants) and an unknown scan."""
    p = eqn.params
    jaxpr, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
    length = p["length"]
    num_ys = len(jaxpr.out_avals) - nk
    const_uk, carry_uk, xs_uk = common.split3(list(unknowns), nc, nk)
    for _ in range(nk + 1):
        out_uk = pe.partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk)[2]
        new = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
        if new == carry_uk:
            break
        carry_uk = new
    in_uk = const_uk + carry_uk + xs_uk
    known, unknown, out_uk, nres = common.partial_eval_jaxpr_inst(
        jaxpr, in_uk, carry_uk + [False] * num_ys
    )
    consts, carry, xs = common.split3(eqn.invars, nc, nk)
    k_consts = [a for a, u in zip(consts, const_uk) if not u]
    k_carry = [a for a, u in zip(carry, carry_uk) if not u]
    k_xs = [a for a, u in zip(xs, xs_uk) if not u]
    n_known_out = out_uk.count(False)
    kj = known.jaxpr
    residuals = kj.outvars[n_known_out:]
    # Residuals that are the body's known constant inputs go to the unknown scan as they are;
    # those computed from the constants alone are computed once, before the loop; those that
    # are its known xs are the xs arrays, unless those are constants of the program being
    # split (JAX forwards traced values only: a constant's elements are stacked); the others
    # are stacked by the known scan.
    k_pos = {id(v): i for i, v in enumerate(kj.invars)}
    n_kc, n_kk = len(k_consts), len(k_carry)
    hoisted_eqns, hoisted = _hoist_invariants(kj, n_kc, residuals, k_consts)
    kind, outer = [], []
    stacked_out = []
    for r in residuals:
        i = k_pos.get(id(r)) if type(r) is Var else None
        if i is not None and i < n_kc:
            kind.append("const")
            outer.append(k_consts[i])
        elif type(r) is Var and id(r) in hoisted:
            kind.append("const")
            outer.append(hoisted[id(r)])
        elif i is not None and i >= n_kc + n_kk and not pe.is_constant(k_xs[i - n_kc - n_kk]):
            kind.append("xs")
            outer.append(k_xs[i - n_kc - n_kk])
        else:
            kind.append("xs")
            v = Var(ShapedArray((length, *r.aval.shape), r.aval.dtype))
            outer.append(v)
            stacked_out.append((r, v))
    uk_outs = [v for v, u in zip(eqn.outvars, out_uk) if u]
    if not uk_outs:
        hoisted_eqns, stacked_out = [], []
    known_body = ClosedJaxpr(
        core.Jaxpr(
            kj.constvars, kj.invars, kj.outvars[:n_known_out] + [r for r, _ in stacked_out], kj.eqns
        ),
        known.consts,
    )
    known_body = ClosedJaxpr(pe.dce_jaxpr(known_body.jaxpr), known_body.consts)
    k_outs = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    known_eqn = JaxprEqn(
        [*k_consts, *k_carry, *k_xs],
        k_outs + [v for _, v in stacked_out],
        scan_p,
        dict(p, jaxpr=known_body, num_consts=n_kc, num_carry=n_kk),
    )
    if not uk_outs:
        return [known_eqn], [], []
    known_eqns = [*hoisted_eqns, known_eqn]
    uj = unknown.jaxpr
    res_binders, uk_binders = uj.invars[:nres], uj.invars[nres:]
    u_consts, u_carry, u_xs = common.split3(
        [a for a, u in zip(eqn.invars, in_uk) if u], sum(const_uk), sum(carry_uk)
    )
    ub_consts, ub_carry, ub_xs = common.split3(uk_binders, sum(const_uk), sum(carry_uk))
    const_res = [(b, a) for b, a, k in zip(res_binders, outer, kind) if k == "const"]
    xs_res = [(b, a) for b, a, k in zip(res_binders, outer, kind) if k == "xs"]
    body = ClosedJaxpr(
        core.Jaxpr(
            [],
            [b for b, _ in const_res] + ub_consts + ub_carry + [b for b, _ in xs_res] + ub_xs,
            uj.outvars,
            uj.eqns,
        ),
        unknown.consts,
    )
    unknown_eqn = JaxprEqn(
        [a for _, a in const_res] + u_consts + u_carry + [a for _, a in xs_res] + u_xs,
        uk_outs,
        scan_p,
        dict(p, jaxpr=body, num_consts=len(const_res) + len(u_consts), num_carry=len(u_carry)),
    )
    return known_eqns, [unknown_eqn], uk_outs


def _hoist_invariants(body, n_consts, residuals, outer_consts):
    """Equations computing the residuals of ``body`` that depend on its first ``n_consts``
    inputs only (loop invariants), rewritten on the outer atoms ``outer_consts``; and a map
    from each such residual to the outer variable holding it."""
    variant = {id(v) for v in body.invars[n_consts:]}
    for e in body.eqns:
        if any(type(a) is Var and id(a) in variant for a in e.invars):
            variant.update(id(v) for v in e.outvars)
    bound = {id(v) for v in body.invars} | {id(v) for v in body.constvars}
    wanted = []
    for r in residuals:
        if type(r) is Var and id(r) not in variant and id(r) not in bound and r not in wanted:
            wanted.append(r)
    if not wanted:
        return [], {}
    inv = pe.dce_jaxpr(core.Jaxpr(body.constvars, body.invars[:n_consts], wanted, body.eqns))
    consts = {id(v) for v in body.constvars}
    if any(type(a) is Var and id(a) in consts for e in inv.eqns for a in e.invars):
        return [], {}  # constants are values, not atoms: such residuals stay per-iteration
    env = {id(v): a for v, a in zip(body.invars[:n_consts], outer_consts)}
    eqns = []
    for e in inv.eqns:
        outs = [Var(v.aval) for v in e.outvars]
        env.update((id(v), o) for v, o in zip(e.outvars, outs))
        ins = [env[id(a)] if type(a) is Var else a for a in e.invars]
        eqns.append(e.replace(invars=ins, outvars=outs))
    return eqns, {id(r): env[id(r)] for r in wanted}


def _scan_transpose(cts, *args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    consts, init, xs = common.split3(args, num_consts, num_carry)
    # The linear body partial evaluation made is untyped: its variables take the types the
    # operands give them, which the cotangents take (sharding in types).
    types = [_arg_type(x, i >= num_consts + num_carry) for i, x in enumerate(args)]
    for i, c in enumerate(cts[:num_carry]):  # an untyped carry: its cotangent's primal type
        if types[num_consts + i] is None and type(c) is not Zero and c is not None:
            ct = sharding_rules.type_sharding(c)
            types[num_consts + i] = reduction_states.cotangent_sharding(ct)
    jaxpr = common.with_types(jaxpr, types)
    c_lin = tuple(ad.is_undefined_primal(x) for x in consts)
    x_lin = tuple(ad.is_undefined_primal(x) for x in xs)
    # Every carry is linear (a known initial carry here is a zero the JVP instantiated; its
    # cotangent is not asked for). The ys whose cotangent is zero drop out of the body.
    carry_avals = jaxpr.out_avals[:num_carry]
    ct_carry = [common.instantiate_ct(c, a) for c, a in zip(cts[:num_carry], carry_avals)]
    ys_nz = tuple(type(c) is not Zero and c is not None for c in cts[num_carry:])
    ct_ys = [c for c, nz in zip(cts[num_carry:], ys_nz) if nz]
    res_consts = [x for x, lin in zip(consts, c_lin) if not lin]
    res_xs = [x for x, lin in zip(xs, x_lin) if not lin]
    lin_const_avals = [ad.tangent_aval(x.aval) for x, lin in zip(consts, c_lin) if lin]
    # The carry's cotangents keep their own types (a strongly typed cotangent of a weakly
    # typed carry stays strong, with no conversion in the loop, as in JAX).
    ct_k_avals = tuple(ad.tangent_aval(core.get_aval(c)) for c in ct_carry)
    body = _transposed_scan_body(jaxpr, num_consts, num_carry, c_lin, x_lin, ys_nz, ct_k_avals)
    acc = [rules.zeros_like_aval(a) for a in lin_const_avals]
    # Residuals the transposed body does not read are not passed.
    used = common.used_inputs(body.jaxpr)
    n_rc, n_c = len(res_consts), len(acc) + num_carry
    n_cy = len(ct_ys)
    keep = used[:n_rc] + [True] * (n_c + n_cy) + used[n_rc + n_c + n_cy :]
    if not all(keep):
        body = common.drop_inputs(body, keep)
        res_consts = [x for x, k in zip(res_consts, keep[:n_rc]) if k]
        res_xs = [x for x, k in zip(res_xs, keep[n_rc + n_c + n_cy :]) if k]
    out = scan_p.bind(
        *res_consts,
        *acc,
        *ct_carry,
        *ct_ys,
        *res_xs,
        jaxpr=body,
        length=length,
        reverse=not reverse,
        num_consts=len(res_consts),
        num_carry=len(acc) + num_carry,
        unroll=unroll,
    )
    ct_consts = iter(out[: len(acc)])
    ct_init = out[len(acc) : len(acc) + num_carry]
    ct_xs = iter(out[len(acc) + num_carry :])
    return (
        [next(ct_consts) if lin else None for lin in c_lin]
        + [c if ad.is_undefined_primal(x) else None for c, x in zip(ct_init, init)]
        + [next(ct_xs) if lin else None for lin in x_lin]
    )


def _arg_type(x: Any, scanned: bool) -> Any:
    """The sharding in the type of a scan operand (a linear one's primal type), of one slice
    of it for a scanned one."""
    s = x.sharding if ad.is_undefined_primal(x) else sharding_rules.type_sharding(x)
    return _drop_leading(s, x.aval.ndim) if scanned else s


def _transposed_scan_body(
    jaxpr, num_consts, num_carry, c_lin, x_lin, ys_nz, ct_k_avals
) -> ClosedJaxpr:
    """(res consts, ct_consts accumulators, ct_carry, nonzero ct_ys, res xs) ->
    (accumulators, ct of the carry, ct of the linear xs). The carry is typed as its
    cotangents ``ct_k_avals`` are."""

    def make():
        linear = list(c_lin) + [True] * num_carry + list(x_lin)
        body = common.retype_inputs(jaxpr, {num_consts + i: a for i, a in enumerate(ct_k_avals)})
        # The consts' cotangents accumulate in the loop's carry, term by term (JAX's order).
        accumulate = [True] * sum(c_lin) + [False] * (num_carry + sum(x_lin))
        t = common.transpose_jaxpr(body, linear, [True] * num_carry + list(ys_nz), accumulate)
        cs, _, xs = common.split3(jaxpr.in_avals, num_consts, num_carry)
        res_c = [a for a, lin in zip(cs, c_lin) if not lin]
        lin_c = [ad.tangent_aval(a) for a, lin in zip(cs, c_lin) if lin]
        res_x = [a for a, lin in zip(xs, x_lin) if not lin]
        ct_k = list(ct_k_avals)
        ys = jaxpr.out_avals[num_carry:]
        ct_y = [ad.tangent_aval(a) for a, nz in zip(ys, ys_nz) if nz]
        n_rc, n_lc, n_k, n_rx = len(res_c), len(lin_c), len(ct_k), len(res_x)

        def fun(*args):
            rc = args[:n_rc]
            acc = args[n_rc : n_rc + n_lc]
            ck = args[n_rc + n_lc : n_rc + n_lc + n_k]
            n_cy = len(args) - n_rc - n_lc - n_k - n_rx
            cy = args[n_rc + n_lc + n_k : n_rc + n_lc + n_k + n_cy]
            rx = args[n_rc + n_lc + n_k + n_cy :]
            return core.eval_jaxpr(t.jaxpr, t.consts, *rc, *rx, *acc, *ck, *cy)

        # Each input is typed as the value it stands for (a cotangent as its primal).
        ct_type = reduction_states.cotangent_sharding
        ts = [v.sharding for v in jaxpr.jaxpr.invars]
        t_cs, t_k, t_xs = common.split3(ts, num_consts, num_carry)
        t_ys = [v.sharding for v in jaxpr.jaxpr.outvars[num_carry:]]
        types = (
            [t for t, lin in zip(t_cs, c_lin) if not lin]
            + [ct_type(t) for t, lin in zip(t_cs, c_lin) if lin]
            + [ct_type(t) for t in t_k]
            + [ct_type(t) for t, nz in zip(t_ys, ys_nz) if nz]
            + [t for t, lin in zip(t_xs, x_lin) if not lin]
        )
        avals = res_c + lin_c + ct_k + ct_y + res_x
        return pe.trace_to_jaxpr(fun, avals, None, common.typed(types))

    return common.cached("scan_transpose", jaxpr, (c_lin, x_lin, ys_nz, ct_k_avals), make)


def _scan_dce(used_outputs, eqn):
    """A carry is live when its result is used or a live output reads it (a fixed point over
    the body); unused stacked outputs, dead carries and the inputs only they read go."""
    p = eqn.params
    nc, nk = p["num_consts"], p["num_carry"]
    body = p["jaxpr"]
    carry, ys = list(used_outputs[:nk]), list(used_outputs[nk:])
    while True:
        _, used_in = pe.dce_jaxpr_inputs(body.jaxpr, carry + ys)
        new = [c or u for c, u in zip(carry, used_in[nc : nc + nk])]
        if new == carry:
            break
        carry = new
    keep_in = used_in[:nc] + carry + used_in[nc + nk :]
    keep_out = carry + ys
    if all(keep_in) and all(keep_out):
        return keep_in, eqn
    params = dict(
        p,
        jaxpr=pe.prune_closed_jaxpr(body, keep_in, keep_out),
        num_consts=sum(keep_in[:nc]),
        num_carry=sum(carry),
    )
    invars = [a for a, k in zip(eqn.invars, keep_in) if k]
    outvars = [v for v, k in zip(eqn.outvars, keep_out) if k]
    return keep_in, core.JaxprEqn(invars, outvars, scan_p, params)


def _scan_mask(active, ins, *, jaxpr, num_consts, **params):
    # The mask joins the body's consts (its callbacks run only where it is True).
    masked = common.masked_effects(jaxpr)
    return scan_p.bind(active, *ins, jaxpr=masked, num_consts=num_consts + 1, **params)


scan_p = core.Primitive("scan", multiple_results=True)
scan_p.def_impl(_scan_impl)
scan_p.def_abstract_eval(_scan_abstract_eval)
batching.primitive_batchers[scan_p] = _scan_batch_rule
ad.primitive_joint_jvps[scan_p] = _scan_jvp
pe.partial_eval_rules[scan_p] = _scan_partial_eval
pe.dce_rules[scan_p] = _scan_dce
callback.mask_rules[scan_p] = _scan_mask
ad.primitive_transposes[scan_p] = _scan_transpose


def _scan_sharding(specs, avals, *, jaxpr, length, num_consts, num_carry, reverse, unroll, **kw):
    # The carry's sharding is a fixed point of the body (as in while); the stacked outputs
    # are the body's per-step outputs with an unsharded leading (scanned) dimension.
    specs = [s or (None,) * a.ndim for s, a in zip(specs, avals)]
    consts = specs[:num_consts]
    carry = specs[num_consts : num_consts + num_carry]
    xs = [s[1:] for s in specs[num_consts + num_carry :]]
    ys: list = []
    for _ in range(4):
        out = sharding_rules.jaxpr_specs(jaxpr, consts + carry + xs, avals)
        merged = [sharding_rules.merge_specs([c, n]) for c, n in zip(carry, out[:num_carry])]
        ys = out[num_carry:]
        if merged == carry:
            break
        carry = merged
    return carry + [(None, *y) for y in ys]


sharding_rules.sharding_rules[scan_p] = _scan_sharding


__all__ = ["scan", "scan_p"]
