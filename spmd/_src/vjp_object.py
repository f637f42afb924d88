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
from spmd._src.lax import refs as lax_refs


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


class _Marker:
    __slots__ = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


class GradValue(_Marker):
    """``with_refs`` entry: return this argument's cotangent as a value (the default)."""


class GradRef(_Marker):
    """What a VJP call returns for an argument whose cotangent went into a bound Ref."""


class DontWant(_Marker):
    """``with_refs`` entry: do not compute this argument's cotangent (nor what only it needs)."""


class DidntWant(_Marker):
    """What a VJP call returns for an argument marked ``DontWant()``."""


# The placeholders are empty pytrees (a jitted function may return them), as in JAX.
for _cls in (GradRef, DidntWant):
    tu.register_pytree_node(_cls, lambda _: ((), ()), lambda _, __, c=_cls: c())


def _is_entry(x: Any) -> bool:
    return isinstance(x, _Marker) or lax_refs.is_ref(x)


class VJP:
    """A VJP function with its saved state: ``f_vjp(y_bar)`` gives the arguments' cotangents.
    ``pullback(residuals, *cts, unwanted=...)`` is the backward pass, reading the residuals in
    the order the leaves of ``(args_res, opaque_residuals)`` flatten to; ``arg_leaves`` counts
    each argument's leaves. ``with_refs`` binds where each argument's cotangent goes."""

    __slots__ = ("_pullback", "_arg_leaves", "_ct_entries", "args_res", "opaque_residuals")

    def __init__(
        self, pullback: Callable, arg_leaves: tuple, args_res: list, opaque_residuals: list
    ) -> None:
        self._pullback = pullback
        self._arg_leaves = arg_leaves
        self._ct_entries = None  # one per argument leaf, once with_refs bound them
        self.args_res = args_res
        self.opaque_residuals = opaque_residuals

    def with_refs(self, *maybe_ct_refs: Any) -> VJP:
        """This VJP function with, per argument, a Ref its cotangent is added into (``+=``:
        accumulated, not set; the call returns ``GradRef()`` there), ``GradValue()`` (returned
        as a value) or ``DontWant()`` (not computed; ``DidntWant()``). An entry is one of those
        for a whole argument or a pytree of them matching it."""
        if len(maybe_ct_refs) != len(self._arg_leaves):
            raise TypeError(
                f"with_refs: expected one entry per argument of the differentiated function "
                f"({len(self._arg_leaves)}), got {len(maybe_ct_refs)}"
            )
        entries = []
        for i, (e, n) in enumerate(zip(maybe_ct_refs, self._arg_leaves)):
            leaves = [e] * n if _is_entry(e) else tu.tree_leaves(e, is_leaf=_is_entry)
            if len(leaves) != n or not all(_is_entry(x) for x in leaves):
                raise TypeError(
                    f"with_refs: entry {i} must be a Ref, GradValue() or DontWant() (or a pytree "
                    f"of them matching argument {i}, of {n} leaves), got {e!r}"
                )
            entries += leaves
        out = VJP(self._pullback, self._arg_leaves, self.args_res, self.opaque_residuals)
        out._ct_entries = entries
        return out

    def __call__(self, *cts: Any) -> Any:
        residuals = tu.tree_leaves((self.args_res, self.opaque_residuals))
        entries = self._ct_entries
        if entries is None:
            return self._pullback(residuals, *cts)
        unwanted = [isinstance(e, DontWant) for e in entries]
        out = self._pullback(residuals, *cts, unwanted=unwanted)
        leaves, tree = tu.tree_flatten(out, is_leaf=lambda x: x is None)
        results = []
        for ct, e in zip(leaves, entries):
            if isinstance(e, DontWant):
                results.append(DidntWant())
            elif lax_refs.is_ref(e):
                e[...] += ct  # accumulated into what the Ref holds
                results.append(GradRef())
            else:
                results.append(ct)
        return tu.tree_unflatten(tree, results)

    def __repr__(self) -> str:
        return f"VJP(args_res={self.args_res!r}, opaque_residuals={self.opaque_residuals!r})"


tu.register_pytree_node(
    VJP,
    lambda v: ((v.args_res, v.opaque_residuals), (tu._StaticCallable(v._pullback), v._arg_leaves)),
    lambda aux, children: VJP(aux[0].fun, aux[1], *children),
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
    arg_leaves = tuple(len(tu.tree_leaves(arg)) for arg in primals)
    return VJP(pullback, arg_leaves, args_res, opaque)
