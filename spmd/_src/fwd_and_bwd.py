"""``fwd_and_bwd``: a function's forward and backward passes as two (jitted) functions.

``fwd(*args)`` linearizes ``fun`` at ``args`` and returns its outputs and the residuals: the
linear map's constants as a pytree whose static part is the map's jaxpr, so they can leave a
jit and enter another. ``bwd(residuals, cotangent)`` transposes that map. Each jit traces once
per argument type, where ``jit(vjp_fun)`` would trace again for every new ``vjp_fun``.

>>> fwd, bwd = spmd.fwd_and_bwd(lambda x: jnp.sin(x), argnums=0)
>>> y, res = fwd(0.0)
>>> bwd(res, 1.0)
Array(1., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.api import jit
from spmd._src.autodiff import _as_value, _ensure_index_tuple, _instantiate_ct, _linearize
from spmd._src.interpreters import ad


class _LinearStatic:
    """The static part of the residuals: the linear map's jaxpr and types and the trees of the
    differentiated arguments and outputs (equal only to itself, so a jit of ``bwd`` traces once
    per ``fwd`` trace)."""

    __slots__ = ("jaxpr", "in_avals", "out_zero", "out_avals", "in_tree", "out_tree", "n_out")

    def __init__(self, linear: ad.LinearFunction, in_tree, out_tree, n_out: int) -> None:
        self.jaxpr = linear.jaxpr.jaxpr
        self.in_avals, self.out_zero = linear.in_avals, linear.out_zero
        self.out_avals = linear.out_avals
        self.in_tree, self.out_tree, self.n_out = in_tree, out_tree, n_out

    def __repr__(self) -> str:
        return f"_LinearStatic({self.in_tree} -> {self.out_tree})"


class Residuals:
    """What ``fwd`` saves for ``bwd``: the constants of the linear map (pytree children)."""

    __slots__ = ("consts", "static")

    def __init__(self, consts: Sequence[Any], static: _LinearStatic) -> None:
        self.consts, self.static = list(consts), static

    def __repr__(self) -> str:
        return f"Residuals({len(self.consts)} arrays, {self.static!r})"


tu.register_pytree_node(
    Residuals, lambda r: (r.consts, r.static), lambda static, consts: Residuals(consts, static)
)


def _check_argnums(argnums: tuple[int, ...], nargs: int) -> None:
    for i in argnums:
        if not -nargs <= i < nargs:
            raise ValueError(
                "Positional argument indices, e.g. for `static_argnums`, must have value greater "
                f"than or equal to -len(args) and less than len(args), but got value {i} for "
                f"len(args) == {nargs}."
            )


def fwd_and_bwd(
    fun: Callable, argnums: int | Sequence[int], has_aux: bool = False, jitted: bool = True
) -> tuple[Callable, Callable]:
    """``(fwd, bwd)``: ``fwd(*args) -> (out, residuals[, aux])`` and ``bwd(residuals, ct)`` ->
    the cotangents of the arguments at ``argnums`` (one value for an int, else a tuple)."""
    nums = _ensure_index_tuple(argnums)
    single = isinstance(argnums, int)

    def fwd(*args):
        _check_argnums(nums, len(args))
        pos = [i % len(args) for i in nums]

        def partial_fun(*dyn):
            full = list(args)
            for i, d in zip(pos, dyn):
                full[i] = d
            return fun(*full)

        primals = tuple(args[i] for i in pos)
        _, in_tree, outs, out_tree, aux, linear = _linearize(
            partial_fun, primals, has_aux, "fwd_and_bwd"
        )
        static = _LinearStatic(linear, in_tree, out_tree, len(outs))
        res = Residuals(linear.jaxpr.consts, static)
        out = tu.tree_unflatten(out_tree, outs)
        return (out, res, aux) if has_aux else (out, res)

    def bwd(res: Residuals, ct: Any):
        st = res.static
        ct_leaves, ct_tree = tu.tree_flatten(ct)
        if ct_tree != st.out_tree:
            raise ValueError(
                "unexpected tree structure of argument to VJP function: got "
                f"{ct_tree}, but expected to match {st.out_tree}"
            )
        for c, a in zip(ct_leaves, st.out_avals):
            ca = core.get_aval(c)
            if ca.shape != a.shape or ca.dtype != a.dtype:
                got, want = ca.str_short(False), a.str_short(False)
                raise ValueError(
                    "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{got}, but expected {want} because the corresponding output of the "
                    f"differentiated function had JAX type {want}"
                )
        closed = core.ClosedJaxpr(st.jaxpr, res.consts)
        linear = ad.LinearFunction(closed, st.in_avals, st.out_zero, st.out_avals)
        n_aux = len(st.out_avals) - st.n_out
        cts = [_as_value(c) for c in ct_leaves] + [ad.Zero(a) for a in st.out_avals[st.n_out :]]
        ct_in = linear.transpose(cts[: st.n_out + n_aux])
        ct_in = [_instantiate_ct(c, a) for c, a in zip(ct_in, st.in_avals)]
        grads = tu.tree_unflatten(st.in_tree, ct_in)
        return grads[0] if single else grads

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd


__all__ = ["fwd_and_bwd"]
