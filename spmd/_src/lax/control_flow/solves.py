"""``lax.custom_linear_solve`` and ``lax.custom_root``: solves differentiated implicitly.

``linear_solve_p`` takes the constants of four closed jaxprs (``matvec``, its transpose
``vecmat``, ``solve`` and ``transpose_solve``; the last two may be missing) followed by the
right-hand side ``b``, and runs ``solve``. Its derivative never looks inside ``solve``: the
tangent of ``x = A^-1 b`` is ``A^-1 (b' - A' x)``, another solve, and its transpose is a solve
with the transposed operator. ``custom_root`` is a ``custom_jvp`` whose rule applies the
implicit function theorem with the user's ``tangent_solve``.

>>> from spmd import lax
>>> lax.custom_linear_solve(lambda x: 2.0 * x, 3.0, lambda mv, b: b / 2.0)
Array(1.5, dtype=float32, weak_type=True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, Var
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax import rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import common


class _LinearSolveTuple(NamedTuple):
    """One entry per function of a linear solve (JAX's parameter layout, printed alike)."""

    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any


# ---------------------------------------------------------------------------------------------
# custom_linear_solve


def custom_linear_solve(
    matvec: Callable,
    b: Any,
    solve: Callable,
    transpose_solve: Callable | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """``solve(matvec, b)``, differentiated as the solution ``x`` of ``matvec(x) == b``.

    ``matvec`` must be linear; ``solve(matvec, b)`` (and ``transpose_solve(vecmat, b)``) must
    return a value shaped like ``b`` (a pair ``(x, aux)`` with ``has_aux``; ``aux`` gets no
    derivative). Reverse mode needs ``transpose_solve``, or ``symmetric=True`` to reuse
    ``solve``. Derivatives with respect to what ``matvec`` closes over flow through ``x``.

    >>> lax.custom_linear_solve(lambda x: 2.0 * x, 3.0, lambda mv, b: b / 2.0)
    Array(1.5, dtype=float32, weak_type=True)
    """
    _register_inline_rule()
    leaves, tree = tu.tree_flatten(b)
    avals = _avals(leaves)
    nb = len(leaves)
    args_tree = tu.tree_structure((b,))  # the functions take b (or x) as their one argument

    mv_closed, mv_out = common.trace_tree_fun(matvec, args_tree, avals, "custom_linear_solve")
    _check_shapes("matvec", tu.tree_leaves(mv_out), avals)
    mv_jaxpr, mv_consts = common.hoist_consts(mv_closed)

    def traced_solve(fun: Callable, op: Callable, name: str):
        def call(x):
            out = fun(op, x)
            if has_aux:
                sol, aux = out
                return sol, aux
            return out

        closed, out = common.trace_tree_fun(call, args_tree, avals, "custom_linear_solve")
        sol_avals = tu.tree_leaves(out[0] if has_aux else out)
        _check_shapes(name, sol_avals, avals)
        return common.hoist_consts(closed), tu.tree_structure(out[1]) if has_aux else None

    (s_jaxpr, s_consts), aux_tree = traced_solve(solve, matvec, "solve")
    if symmetric:
        # The transpose solve is solve, traced again (as JAX does) with vecmat = matvec.
        vm_jaxpr, vm_consts = mv_jaxpr, mv_consts
        (ts_jaxpr, ts_consts), _ = traced_solve(solve, matvec, "transpose_solve")
    elif transpose_solve is not None:
        # vecmat is matvec's linear transpose: what matvec computes from its constants alone
        # runs here, and vecmat takes the results as its constants (as JAX builds it).
        from spmd._src.linear_transpose import linear_transpose  # lazy: a layer above lax

        transposed = linear_transpose(matvec, b)

        def vecmat(y):
            return transposed(y)[0]

        vm_closed, _ = common.trace_tree_fun(vecmat, args_tree, avals, "custom_linear_solve")
        vm_jaxpr, vm_consts = common.hoist_consts(vm_closed)
        (ts_jaxpr, ts_consts), _ = traced_solve(transpose_solve, vecmat, "transpose_solve")
    else:
        vm_jaxpr = ts_jaxpr = None
        vm_consts, ts_consts = [], []

    jaxprs = _LinearSolveTuple(mv_jaxpr, vm_jaxpr, s_jaxpr, ts_jaxpr)
    lengths = _LinearSolveTuple(len(mv_consts), len(vm_consts), len(s_consts), len(ts_consts))
    operands = [*mv_consts, *vm_consts, *s_consts, *ts_consts, *leaves]
    out = linear_solve_p.bind(*operands, const_lengths=lengths, jaxprs=jaxprs)
    x = tu.tree_unflatten(tree, out[:nb])
    if has_aux:
        return x, tu.tree_unflatten(aux_tree, out[nb:])
    return x


def _avals(leaves: list) -> list:
    out = []
    for x in leaves:
        try:
            out.append(core.get_aval(x))
        except TypeError:
            raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type") from None
    return out


def _check_shapes(name: str, got: list, want: list) -> None:
    got_shapes = [tuple(a.shape) for a in got]
    want_shapes = [tuple(a.shape) for a in want]
    if got_shapes != want_shapes:
        raise ValueError(f"{name}() output shapes must match b, got {got_shapes} and {want_shapes}")


def _split(args, const_lengths):
    """The operands as (matvec consts, vecmat consts, solve consts, transpose_solve consts, b)."""
    out, i = [], 0
    for n in const_lengths:
        out.append(list(args[i : i + n]))
        i += n
    return (*out, list(args[i:]))


def _transposed(const_lengths, jaxprs, groups):
    """Parameters and operands of the solve with the transposed operator."""
    mv, vm, s, ts, b = groups
    lengths = _LinearSolveTuple(*(const_lengths[i] for i in (1, 0, 3, 2)))
    swapped = _LinearSolveTuple(jaxprs.vecmat, jaxprs.matvec, jaxprs.transpose_solve, jaxprs.solve)
    return lengths, swapped, [*vm, *mv, *ts, *s]


def _linear_solve_impl(*args, const_lengths, jaxprs):
    _, _, s, _, b = _split(args, const_lengths)
    return core.jaxpr_as_numpy_fn(jaxprs.solve)(*s, *b)


def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    _, _, _, _, b = _split(avals, const_lengths)
    outs = jaxprs.solve.out_avals
    if [a.shape for a in outs[: len(b)]] != [a.shape for a in b]:
        raise TypeError(
            f"custom_linear_solve: solve returns {[a.str_short() for a in outs]}, but b is "
            f"{[a.str_short() for a in b]}"
        )
    return list(outs)


def _linear_solve_batch_rule(axis_data, vals, dims, *, const_lengths, jaxprs):
    # The solution is batched whenever anything is (b is broadcast if need be): simpler than
    # a fixed point over which parts of x depend on the mapped axis, and the same values.
    size = axis_data.size
    groups = _split(vals, const_lengths)
    dgroups = _split(dims, const_lengths)
    nb = len(groups[4])
    new_groups = [
        [x if d is None else rules.moveaxis(x, d, 0) for x, d in zip(g, dg)]
        for g, dg in zip(groups[:4], dgroups[:4])
    ]
    b = [_at_front(x, d, size) for x, d in zip(groups[4], dgroups[4])]
    cb = [[d is not None for d in dg] for dg in dgroups[:4]]

    def batch(closed, consts_batched, with_aux):
        if closed is None:
            return None, []
        ins = consts_batched + [True] * nb
        n_aux = len(closed.out_avals) - nb
        aux_b = common.batched_outputs(closed, axis_data, ins)[nb:] if with_aux else []
        outs = [True] * nb + list(aux_b) if with_aux else [True] * nb
        assert len(outs) == nb + n_aux
        return common.batch_jaxpr_at0(closed, axis_data, ins, outs), aux_b

    mv, _ = batch(jaxprs.matvec, cb[0], False)
    vm, _ = batch(jaxprs.vecmat, cb[1], False)
    s, aux_b = batch(jaxprs.solve, cb[2], True)
    ts, _ = batch(jaxprs.transpose_solve, cb[3], True)
    new = _LinearSolveTuple(mv, vm, s, ts)
    operands = [x for g in new_groups for x in g] + b
    out = linear_solve_p.bind(*operands, const_lengths=const_lengths, jaxprs=new)
    return out, [0] * nb + [0 if a else None for a in aux_b]


def _at_front(x, d, size):
    if d is not None:
        return rules.moveaxis(x, d, 0)
    # Broadcast with NumPy-computed dimensions, as JAX's rule (its jaxprs print np.int64s).
    dims = tuple(np.arange(1, np.ndim(x) + 1))
    return lax_shape.broadcast_in_dim(x, (size, *np.shape(x)), dims)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    # x = A^-1 b, so x' = A^-1 (b' - A' x): A' is matvec differentiated in its constants only.
    # The constants of solve and transpose_solve get no derivative: the solve is implicit.
    groups = _split(primals, const_lengths)
    tgroups = _split(tangents, const_lengths)
    nb = len(groups[4])
    out = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    x = out[:nb]
    out_avals = jaxprs.solve.out_avals
    mv_t, b_t = tgroups[0], tgroups[4]
    mv_nz = [type(t) is not Zero for t in mv_t]
    if not any(mv_nz) and all(type(t) is Zero for t in b_t):
        return out, [Zero(ad.tangent_aval(a)) for a in out_avals]
    rhs = [ad.instantiate(t) for t in b_t]
    if any(mv_nz):
        mv = jaxprs.matvec
        x_t = [Zero(ad.tangent_aval(a)) for a in mv.in_avals[len(mv_t) :]]
        _, dmv = ad.jvp_flat(
            lambda *xs: core.eval_jaxpr(mv.jaxpr, mv.consts, *xs), [*groups[0], *x], [*mv_t, *x_t]
        )
        rhs = [r if type(d) is Zero else rules.add_any(r, lax_ew.neg(d)) for r, d in zip(rhs, dmv)]
    ops = [x for g in groups[:4] for x in g] + rhs
    x_dot = linear_solve_p.bind(*ops, const_lengths=const_lengths, jaxprs=jaxprs)[:nb]
    return out, list(x_dot) + [Zero(ad.tangent_aval(a)) for a in out_avals[nb:]]


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve"
        )
    groups = _split(args, const_lengths)
    nconsts = sum(const_lengths)
    if any(ad.is_undefined_primal(c) for g in groups[:4] for c in g):
        raise ValueError("custom_linear_solve: cannot transpose with respect to the constants")
    b = groups[4]
    ct_x = [common.instantiate_ct(c, ad.tangent_aval(a.aval)) for c, a in zip(cts, b)]
    lengths, swapped, consts = _transposed(const_lengths, jaxprs, groups)
    out = linear_solve_p.bind(*consts, *ct_x, const_lengths=lengths, jaxprs=swapped)
    return [None] * nconsts + list(out[: len(b)])


class _Printed:
    """A parameter printed as given text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def _pp_params(params: dict) -> list[tuple[str, Any]]:
    # JAX prints the jaxprs as its named tuple's repr: each jaxpr as printed on its own.
    jaxprs = params["jaxprs"]
    fields = ", ".join(
        f"{k}={'None' if j is None else str(j)}" for k, j in zip(jaxprs._fields, jaxprs)
    )
    return [
        ("const_lengths", params["const_lengths"]),
        ("jaxprs", _Printed(f"_LinearSolveTuple({fields})")),
    ]


def _solve_call(const_lengths, jaxprs) -> ClosedJaxpr:
    """``solve`` as a jaxpr taking every operand of the primitive (the others unused)."""

    def make():
        s = jaxprs.solve
        mv_avals = jaxprs.matvec.in_avals[: const_lengths.matvec]
        vm_avals = jaxprs.vecmat.in_avals[: const_lengths.vecmat] if jaxprs.vecmat else []
        ts_avals = (
            jaxprs.transpose_solve.in_avals[: const_lengths.transpose_solve]
            if jaxprs.transpose_solve
            else []
        )
        ns = const_lengths.solve
        j = s.jaxpr
        invars = (
            [Var(a) for a in [*mv_avals, *vm_avals]]
            + list(j.invars[:ns])
            + [Var(a) for a in ts_avals]
            + list(j.invars[ns:])
        )
        return ClosedJaxpr(core.Jaxpr(j.constvars, invars, j.outvars, j.eqns), s.consts)

    return common.cached("linear_solve_call", jaxprs.solve, (const_lengths, jaxprs), make)


def _register_inline_rule() -> None:
    """Let jit splice the solve into the program that calls it (its kernel otherwise is the
    impl, which runs the same solve). Registered at the first call: the compiler's tables live
    in a layer above lax, and no equation of this primitive exists before that call."""
    from spmd._src import dispatch  # lazy: the compiler (dispatch) is a layer above lax

    dispatch.inline_rules[linear_solve_p] = _solve_call


linear_solve_p = core.Primitive("custom_linear_solve", multiple_results=True)
linear_solve_p.def_impl(_linear_solve_impl)
linear_solve_p.def_abstract_eval(_linear_solve_abstract_eval)
batching.primitive_batchers[linear_solve_p] = _linear_solve_batch_rule
ad.primitive_joint_jvps[linear_solve_p] = _linear_solve_jvp
ad.primitive_transposes[linear_solve_p] = _linear_solve_transpose
core.pp_param_rules[linear_solve_p] = _pp_params
# Sharding propagation looks through to the solve that runs.
sharding_rules.call_jaxprs[linear_solve_p] = lambda eqn: _solve_call(**eqn.params).jaxpr


# ---------------------------------------------------------------------------------------------
# custom_root


def custom_root(
    f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable, has_aux=False
) -> Any:
    """``solve(f, initial_guess)``, a root of ``f``, differentiated by the implicit function
    theorem: for a root ``x`` of ``f(x, p) = 0`` (``p`` what ``f`` closes over),
    ``x' = -tangent_solve(g, f_p(x, p) p')`` with ``g`` the linear map ``v -> f_x(x, p) v``.

    ``solve`` is never differentiated; with ``has_aux`` it returns ``(root, aux)`` and ``aux``
    gets a zero derivative.

    >>> newton = lambda f, x: lax.fori_loop(0, 20, lambda i, x: x - f(x) / spmd.grad(f)(x), x)
    >>> lax.custom_root(lambda x: x**2 - 2.0, 1.0, newton, lambda g, y: y / g(1.0))
    Array(1.4142135, dtype=float32, weak_type=True)
    """
    from spmd._src.autodiff import jvp as api_jvp  # lazy: autodiff is a layer above lax
    from spmd._src.custom_derivatives.jvp import custom_jvp  # lazy: as above

    leaves, tree = tu.tree_flatten(initial_guess)
    avals = _avals(leaves)
    nx = len(leaves)
    args_tree = tu.tree_structure((initial_guess,))

    f_closed, f_out = common.trace_tree_fun(f, args_tree, avals, "custom_root")
    _check_tree("f", "initial_guess", tu.tree_structure(f_out), tree)
    f_jaxpr, f_consts = common.hoist_consts(f_closed)
    nf = len(f_consts)
    f_avals = [core.get_aval(c) for c in f_consts]

    def f_flat(consts: list, x: list) -> list:
        return core.eval_jaxpr(f_jaxpr.jaxpr, [], *consts, *x)

    # solve takes the user's f: its constants are what it (and f through it) closes over.
    def solve_call(x0):
        out = solve(f, x0)
        if has_aux:
            root, aux = out
            return root, aux
        return out

    s_closed, s_out = common.trace_tree_fun(solve_call, args_tree, avals, "custom_root")
    _check_tree("solve", "initial_guess", tu.tree_structure(s_out[0] if has_aux else s_out), tree)
    aux_tree = tu.tree_structure(s_out[1]) if has_aux else None
    s_jaxpr, s_consts = common.hoist_consts(s_closed)

    # tangent_solve is traced now (its errors come at the call, as JAX's) with the linear map
    # v -> f_x(x) v; its constants are f's followed by its own.
    def ts_call(fc, x, y):
        def lin(v):
            _, t = api_jvp(lambda xs: f_flat(list(fc), xs), (list(x),), (tu.tree_leaves(v),))
            return tu.tree_unflatten(tree, t)

        sol = tangent_solve(lin, tu.tree_unflatten(tree, list(y)))
        _check_tree("tangent_solve", "x", tu.tree_structure(sol), tree)
        return sol

    ts_tree = tu.tree_structure((list(f_avals), list(avals), list(avals)))
    ts_closed, _ = common.trace_tree_fun(ts_call, ts_tree, f_avals + avals + avals, "custom_root")
    ts_jaxpr, ts_own = common.hoist_consts(ts_closed)

    def _custom_root(fc, sc, tc, x0):
        return core.eval_jaxpr(s_jaxpr.jaxpr, [], *sc, *x0)

    def _root_jvp(primals, tangents):
        fc, sc, tc, x0 = primals
        outs = fn(fc, sc, tc, x0)
        root = outs[:nx]
        # f(root(p), p) = 0, so f_x root' = -f_p p': the right-hand side is f's derivative in
        # its constants at the root.
        _, rhs = api_jvp(lambda c: f_flat(c, root), (list(fc),), (list(tangents[0]),))
        ts_args = [*tc[nf:], *tc[:nf], *root, *rhs]
        sol = core.eval_jaxpr(ts_jaxpr.jaxpr, [], *ts_args)
        root_dot = [lax_ew.neg(t) for t in sol]
        aux_dot = [rules.zeros_like_aval(ad.tangent_aval(core.get_aval(a))) for a in outs[nx:]]
        return outs, root_dot + aux_dot

    fn = custom_jvp(_custom_root)
    fn.defjvp(_root_jvp)
    outs = fn(list(f_consts), list(s_consts), [*f_consts, *ts_own], list(leaves))
    root = tu.tree_unflatten(tree, outs[:nx])
    if has_aux:
        aux = tu.tree_unflatten(aux_tree, [lax_ew.stop_gradient(a) for a in outs[nx:]])
        return root, aux
    return root


def _check_tree(name: str, what: str, got: Any, want: Any) -> None:
    if got != want:
        raise TypeError(
            f"{name}() output pytree structure must match {what}, got {got} and {want}."
        )


__all__ = ["custom_linear_solve", "linear_solve_p", "custom_root"]
