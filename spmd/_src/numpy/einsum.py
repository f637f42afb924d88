"""``jnp.einsum``: the subscripts (or the interleaved operand/axes form) are parsed, and the
operands are contracted pairwise along a greedy path, each contraction one ``dot_general``.

>>> jnp.einsum("ij,j->i", jnp.arange(6).reshape(2, 3), jnp.arange(3))
Array([ 5, 14], dtype=int32)
"""

from __future__ import annotations

import operator
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sharding import _reshard_sharding, apply_out_sharding
from spmd._src.numpy import util
from spmd._src.numpy.products import _dot_general, _finish, _result_type
from spmd._src.numpy.util import with_out_sharding
from spmd._src.sharding import P
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# einsum


_LETTERS = string.ascii_letters


def _parse_interleaved(args: Sequence[Any]):
    ops, terms = [], []
    args = list(args)
    out_term = None
    if len(args) % 2 == 1:
        out_term = args.pop()
    for i in range(0, len(args), 2):
        ops.append(args[i])
        terms.append(args[i + 1])

    def term_str(t):
        s = ""
        for v in t:
            if v is Ellipsis:
                s += "..."
            else:
                k = operator.index(v)
                if not 0 <= k < len(_LETTERS):
                    raise ValueError(
                        f"einsum: subscript {k} is out of range; subscripts must be integers in "
                        f"[0, {len(_LETTERS)})."
                    )
                s += _LETTERS[k]
        return s

    spec = ",".join(term_str(t) for t in terms)
    if out_term is not None:
        spec += "->" + term_str(out_term)
    return spec, ops


def _parse_einsum(spec: str, shapes: Sequence[tuple[int, ...]]):
    """Input labels per operand and output labels, with ellipses replaced by fresh letters."""
    spec = spec.replace(" ", "")
    explicit = "->" in spec
    if explicit:
        ins, out = spec.split("->", 1)
        if "->" in out:
            raise ValueError("einsum: subscripts may contain '->' only once.")
    else:
        ins, out = spec, None
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"Number of einsum subscripts, {len(terms)}, must be equal to the number of "
            f"operands, {len(shapes)}."
        )
    for t in (*terms, out or ""):
        for c in t.replace("...", ""):
            if c not in _LETTERS:
                raise ValueError(f"Character '{c}' is not a valid symbol.")
    used = set(ins.replace("...", "").replace(",", "")) | set((out or "").replace("...", ""))
    fresh = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for t, s in zip(terms, shapes):
        if "..." in t:
            n_ell = max(n_ell, len(s) - (len(t) - 3))
    ell = "".join(fresh[:n_ell])
    labels = []
    for i, (t, s) in enumerate(zip(terms, shapes)):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            if k < 0:
                raise ValueError(
                    f"Einstein sum subscript '{t}' does not contain the correct number of "
                    f"indices for operand {i}."
                )
            t = t.replace("...", ell[n_ell - k :] if k else "")
        if len(t) != len(s):
            raise ValueError(
                f"Einstein sum subscript '{t}' does not contain the correct number of indices "
                f"for operand {i}."
            )
        labels.append(t)
    counts = Counter("".join(labels))
    if out is None:
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        out = out.replace("...", ell) if "..." in out else out
        for c in out:
            if out.count(c) > 1:
                raise ValueError(f"Output character '{c}' appeared more than once in the output.")
            if c not in counts:
                raise ValueError(f"Output character '{c}' did not appear in the input")
    sizes: dict[str, int] = {}
    for i, (t, s) in enumerate(zip(labels, shapes)):
        for c, d in zip(t, s):
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = d
            elif d != 1 and d != prev:
                raise ValueError(
                    f"Size of label '{c}' for operand {i} ({d}) does not match previous terms "
                    f"({prev})."
                )
    return labels, out, sizes


@with_out_sharding("jnp.einsum", inner=True)
def einsum(
    subscripts,
    /,
    *operands,
    out=None,
    optimize="auto",
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    """Einstein summation: ``jnp.einsum('ij,jk->ik', a, b)`` is ``a @ b``.

    Accepts ``...`` and the interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Operands
    are contracted two at a time, each pair by one ``dot_general``; repeated labels take
    diagonals and labels of one operand only are summed first.

    >>> jnp.einsum("ij,ij->i", jnp.ones((2, 3)), jnp.ones((2, 3)))
    Array([3., 3.], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if isinstance(subscripts, str):
        spec, ops = subscripts, list(operands)
    else:
        spec, ops = _parse_interleaved((subscripts, *operands))
    util.check_arraylike("einsum", *ops)
    ops = [util.to_array(x) for x in ops]
    labels, out_labels, _ = _parse_einsum(spec, [x.shape for x in ops])
    dt, weak = _result_type(ops, preferred_element_type, "einsum")
    env = _EinsumEnv(dt, precision)
    if out_sharding is not None:
        # The last contraction takes it (the sharding in types it decides), as in JAX.
        env.out_sharding = _reshard_sharding(out_sharding, len(out_labels), "jnp.einsum")
        env.out_labels = out_labels
    terms = list(zip(ops, labels))
    if len(terms) == 1:
        x, names = terms[0]
        x, names = env.single(x, names, out_labels)
        terms = [(x, names)]
        if out_sharding is not None:
            terms = [(apply_out_sharding(x, env.out_sharding, "jnp.einsum"), names)]
    if len(terms) > 1:
        sizes = {}
        for x, names in terms:
            for c, d in zip(names, x.shape):
                sizes[c] = max(sizes.get(c, 1), d)
        for i, j in _contraction_path(labels, sizes, out_labels):
            # As in JAX (after opt_einsum), the later operand is the left one.
            rhs, lhs = terms[i], terms[j]
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            keep = set(out_labels).union(*(set(n) for _, n in rest))
            if rest:
                # An intermediate keeps its labels in order of appearance, left operand first.
                result = "".join(dict.fromkeys(c for c in lhs[1] + rhs[1] if c in keep))
            else:
                result = out_labels
            terms = [*rest, env.pair(lhs, rhs, keep, result)]
    x, names = terms[0]
    if names != out_labels:
        x = lax_shape.transpose(x, tuple(names.index(c) for c in out_labels))
    return _finish(x, dt, weak)


def _contraction_path(labels: list[str], sizes: dict[str, int], out: str) -> list[tuple]:
    """The order of pairwise contractions, as positions in the shrinking operand list (each
    result is appended at the end).

    Up to 5 operands every order is searched for the fewest multiply-adds (ties go to the
    first order found); beyond that, each step takes the pair with the smallest result.
    """

    def step(terms, i, j):
        rest = [t for k, t in enumerate(terms) if k not in (i, j)]
        keep = set(out).union(*(set(t) for t in rest))
        lhs, rhs = terms[j], terms[i]
        new = "".join(dict.fromkeys(c for c in lhs + rhs if c in keep))
        union = set(lhs) | set(rhs)
        factor = 2 if union - set(new) else 1
        return [*rest, new], factor * prod(sizes[c] for c in union), prod(sizes[c] for c in new)

    n = len(labels)
    if n <= 5:
        best: list = [None, None]

        def search(terms, cost, path):
            if best[0] is not None and cost >= best[0]:
                return
            if len(terms) == 1:
                best[0], best[1] = cost, path
                return
            for i in range(len(terms)):
                for j in range(i + 1, len(terms)):
                    new_terms, c, _ = step(terms, i, j)
                    search(new_terms, cost + c, [*path, (i, j)])

        search(list(labels), 0, [])
        return best[1]
    terms, path = list(labels), []
    while len(terms) > 1:
        cands = []
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                new_terms, c, size = step(terms, i, j)
                cands.append((size, c, i, j, new_terms))
        size, c, i, j, terms = min(cands, key=lambda t: t[:4])
        path.append((i, j))
    return path


class _EinsumEnv:
    """The steps of an einsum contraction, in the accumulation dtype ``dt``."""

    out_sharding: Any = None  # the result's, by out_labels (einsum's out_sharding=)
    out_labels: str = ""

    def _sharding_for(self, final: str, names: str) -> Any:
        """The out_sharding for the contraction giving the result (labels ``names``)."""
        if self.out_sharding is None or final != self.out_labels:
            return None
        if names == final:
            return self.out_sharding
        spec = self.out_sharding.spec._normalized(len(final))
        parts = [spec[final.index(c)] for c in names]
        while parts and parts[-1] is None:
            parts.pop()
        return self.out_sharding.with_spec(P(*parts))

    def __init__(self, dt: np.dtype, precision: Any) -> None:
        self.dt = dt
        self.precision = precision

    def sum(self, x, axes):
        if dtypes.promote_types(x.dtype, self.dt) != x.dtype:
            x = lax.convert_element_type(x, self.dt)
        if x.dtype == np.bool_:
            return lax_red.reduce_or(x, axes)
        return lax_red.reduce_sum(x, axes)

    def sum_uniques(self, x, names, uniques):
        if uniques:
            x = self.sum(x, tuple(names.index(c) for c in uniques))
            names = "".join(c for c in names if c not in uniques)
        return x, names

    def sum_repeats(self, x, names, keep):
        for c, n in Counter(names).items():
            if n < 2:
                continue
            axes = [i for i, d in enumerate(names) if d == c]
            sub = tuple(x.shape[a] for a in axes)
            iotas = [lax_shape.broadcasted_iota(np.uint32, sub, k) for k in range(len(axes))]
            mask = lax.eq(iotas[0], iotas[1])
            for k in range(2, len(axes)):
                mask = lax.bitwise_and(mask, lax.eq(iotas[k - 1], iotas[k]))
            if x.ndim > len(axes):
                mask = lax_shape.broadcast_in_dim(mask, x.shape, tuple(axes))
            zeros = lax_shape.full(x.shape, 0, x.dtype)
            x = lax.select_n(mask, zeros, x)
            if c in keep:
                x = self.sum(x, tuple(axes[:-1]))
                drop = set(axes[:-1])
            else:
                x = self.sum(x, tuple(axes))
                drop = set(axes)
            names = "".join(d for i, d in enumerate(names) if i not in drop)
        return x, names

    def single(self, x, names, out_labels):
        counts = Counter(names)
        uniques = [c for c in sorted(counts) if counts[c] == 1 and c not in out_labels]
        x, names = self.sum_uniques(x, names, uniques)
        return self.sum_repeats(x, names, out_labels)

    @staticmethod
    def _filter_singletons(x, names, other, other_names):
        # A size-1 axis facing a larger axis of the same label broadcasts: drop it.
        drop = [
            i
            for i, c in enumerate(names)
            if x.shape[i] == 1 and c in other_names and other.shape[other_names.index(c)] != 1
        ]
        if drop:
            x = lax_shape.squeeze(x, drop)
            names = "".join(c for i, c in enumerate(names) if i not in drop)
        return x, names

    def pair(self, lhs_term, rhs_term, keep, final):
        (lhs, ln), (rhs, rn) = lhs_term, rhs_term
        lhs, ln = self._filter_singletons(lhs, ln, rhs, rn)
        rhs, rn = self._filter_singletons(rhs, rn, lhs, ln)
        lc, rc = Counter(ln), Counter(rn)
        contracted = sorted((set(ln) | set(rn)) - keep)
        lhs, ln = self.sum_uniques(lhs, ln, [c for c in contracted if lc[c] == 1 and not rc[c]])
        rhs, rn = self.sum_uniques(rhs, rn, [c for c in contracted if rc[c] == 1 and not lc[c]])
        lhs, ln = self.sum_repeats(lhs, ln, keep | set(rn))
        rhs, rn = self.sum_repeats(rhs, rn, keep | set(ln))
        contracted = [c for c in contracted if c in ln and c in rn]
        both = set(ln) & set(rn)
        batch = [c for c in final if c in both and c not in contracted]
        deleted = set(batch) | set(contracted)
        lfree = "".join(c for c in ln if c not in deleted)
        rfree = "".join(c for c in rn if c not in deleted)
        bstr = "".join(batch)
        l_contract = tuple(ln.index(c) for c in contracted)
        r_contract = tuple(rn.index(c) for c in contracted)
        l_batch = tuple(ln.index(c) for c in batch)
        r_batch = tuple(rn.index(c) for c in batch)
        # Of the two operand orders, prefer one whose result needs no transpose.
        if bstr + rfree + lfree == final:
            out = _dot_general(
                rhs, lhs, (r_contract, l_contract), (r_batch, l_batch), self.precision, self.dt,
                self._sharding_for(final, bstr + rfree + lfree),
            )  # fmt: skip
            return out, bstr + rfree + lfree
        out = _dot_general(
            lhs, rhs, (l_contract, r_contract), (l_batch, r_batch), self.precision, self.dt,
            self._sharding_for(final, bstr + lfree + rfree),
        )  # fmt: skip
        names = bstr + lfree + rfree
        if names != final:
            out = lax_shape.transpose(out, tuple(names.index(c) for c in final))
            names = final
        return out, names


__all__ = [
    "einsum",
]
