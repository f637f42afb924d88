"""The VJP object ``vjp`` returns (JAX 0.10's ``VJP``): a callable pytree whose leaves are the
residuals its backward pass reads.

``args_res`` mirrors the positional arguments: for each, the values of its leaves the backward
pass needs verbatim (an argument with several leaves as a tuple of them), ``NotNeeded()`` for
the others; ``opaque_residuals`` are the values the forward pass computed for it. Flattened,
a VJP object's leaves are those of ``args_res`` then ``opaque_residuals`` (the order of JAX's),
so it can be returned from one jitted function and passed to another, or rebuilt around other
values (``tree_unflatten``).

>>> import spmd, spmd.numpy as jnp
>>> y, f_vjp = spmd.vjp(lambda w, x: jnp.tanh(x @ w), jnp.ones((3, 3)), jnp.ones((2, 3)))
>>> [r.shape for r in f_vjp.args_res], len(f_vjp.opaque_residuals)
([(3, 3), (2, 3)], 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spmd._src import tree_util as tu


class NotNeeded:
    """An argument value the backward pass does not read (an entry of ``VJP.args_res``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NotNeeded()"

    def __eq__(self, other: object) -> bool:
        return type(other) is NotNeeded

    def __hash__(self) -> int:
        return hash(NotNeeded)


tu.register_pytree_node(NotNeeded, lambda _: ((), ()), lambda _, __: NotNeeded())


class VJP:
    """A VJP function with its saved state: ``f_vjp(y_bar)`` gives the arguments' cotangents.
    ``pullback(residuals, *cts)`` is the backward pass, reading the residuals in the order
    the leaves of ``(args_res, opaque_residuals)`` flatten to."""

    __slots__ = ("_pullback", "args_res", "opaque_residuals")

    def __init__(self, pullback: Callable, args_res: list, opaque_residuals: list) -> None:
        self._pullback = pullback
        self.args_res = args_res
        self.opaque_residuals = opaque_residuals

    def __call__(self, *cts: Any) -> Any:
        residuals = tu.tree_leaves((self.args_res, self.opaque_residuals))
        return self._pullback(residuals, *cts)

    def __repr__(self) -> str:
        return f"VJP(args_res={self.args_res!r}, opaque_residuals={self.opaque_residuals!r})"


tu.register_pytree_node(
    VJP,
    lambda v: ((v.args_res, v.opaque_residuals), tu._StaticCallable(v._pullback)),
    lambda pullback, children: VJP(pullback.fun, *children),
)


def make_vjp(pullback: Callable, primals: tuple, leaves: list, residuals: list) -> VJP:
    """The VJP object of ``pullback`` for arguments ``primals`` (``leaves``: their flattened
    values as linearized), given ``residuals`` ordered as autodiff._inputs_first orders them:
    the ones that are arguments' leaves first, in argument order."""
    originals = tu.tree_leaves(primals)
    res_ids = {id(r) for r in residuals}
    saved, seen = [], set()
    for orig, leaf in zip(originals, leaves):
        # Only a leaf that was an array already is saved verbatim (a Python scalar becomes an
        # array when linearized: a computed residual, as in JAX), and a value passed twice once.
        verbatim = orig is leaf and id(leaf) in res_ids and id(leaf) not in seen
        saved.append(leaf if verbatim else NotNeeded())
        if verbatim:
            seen.add(id(leaf))
    args_res, i = [], 0
    for arg in primals:
        arg_leaves = tu.tree_leaves(arg)
        part = saved[i : i + len(arg_leaves)]
        i += len(arg_leaves)
        is_leaf = len(arg_leaves) == 1 and arg_leaves[0] is arg
        args_res.append(part[0] if is_leaf else tuple(part))
    opaque = [r for r in residuals if id(r) not in seen]
    return VJP(pullback, args_res, opaque)
