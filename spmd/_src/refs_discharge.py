"""Differentiating programs that use a Ref made outside them (a scan body, cond branches, a
jit's program writing into the caller's ref).

Under differentiation a ref keeps its tangent beside it (``lax.refs._TangentCell``), which a
loop's or branch's rule cannot carry through its inner program. So before such a primitive is
differentiated, it is rewritten (``ad.jvp_rewrites``) into one that uses no outside ref: the
ref's value is read, passed in as an operand (a scan: as a carry), put into a fresh ref inside
the program, and frozen out as an extra result, which is then written back into the ref. The
fresh ref lives inside the program, where the rules of the ref primitives differentiate it, and
the loop's or branch's own rule sees only values. A jit is differentiated as its program
inlined. The values are those of the original program; the derivative is JAX's.

>>> import spmd, spmd.numpy as jnp
>>> from spmd import lax
>>> from spmd._src.refs import new_ref, freeze
>>> def f(x):
...     r = new_ref(0.0)
...     def body(c, xi):
...         r[...] += xi * xi
...         return c, ()
...     lax.scan(body, 0.0, x)
...     return freeze(r)
>>> spmd.grad(f)(jnp.arange(3.0))
Array([0., 2., 4.], dtype=float32)
"""

from __future__ import annotations

from spmd._src import core, dispatch
from spmd._src.core import ClosedJaxpr
from spmd._src.interpreters import ad
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax.control_flow.conditionals import cond_p
from spmd._src.lax.control_flow.scan import scan_p
from spmd._src.lax.control_flow.while_loop import while_p
from spmd._src.lax.refs import freeze, is_ref, new_ref, ref_get, ref_set


def _with_fresh_refs(closed: ClosedJaxpr, refs_at: list[int], extra_at: int):
    """``closed``'s program taking, instead of the refs it takes at inputs ``refs_at``, their
    values as inputs inserted at position ``extra_at`` of the other inputs; it puts them into
    fresh refs, runs, and gives ``(results, the fresh refs frozen)``. Returns the function and
    its input types."""
    avals = list(closed.in_avals)
    ref_avals = [core.ShapedArray(avals[i].shape, avals[i].dtype, avals[i].weak_type)
                 for i in refs_at]  # fmt: skip
    rest = [a for i, a in enumerate(avals) if i not in refs_at]
    in_avals = rest[:extra_at] + ref_avals + rest[extra_at:]
    k = len(refs_at)

    def fun(*ins):
        rest_vals = list(ins[:extra_at]) + list(ins[extra_at + k :])
        rs = [new_ref(v) for v in ins[extra_at : extra_at + k]]
        it_rest, it_refs = iter(rest_vals), iter(rs)
        full = [next(it_refs) if i in refs_at else next(it_rest) for i in range(len(avals))]
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *full)
        return list(outs), [freeze(r) for r in rs]

    return fun, in_avals


def _scan_rewrite(*args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    refs_at = [i for i in range(num_consts) if is_ref(args[i])]
    if not refs_at:
        return NotImplemented
    k = len(refs_at)
    refs = [args[i] for i in refs_at]
    plain = [x for i, x in enumerate(args[:num_consts]) if i not in refs_at]
    carry, xs = args[num_consts : num_consts + num_carry], args[num_consts + num_carry :]
    n_plain = len(plain)
    # The body takes (plain consts, carry, ref values, xs) and gives (carry, ref values, ys).
    fun, in_avals = _with_fresh_refs(jaxpr, refs_at, n_plain + num_carry)

    def body(*ins):
        outs, frozen = fun(*ins)
        return [*outs[:num_carry], *frozen, *outs[num_carry:]]

    new_body = pe.trace_to_jaxpr(body, in_avals)
    vals = [ref_get(r) for r in refs]
    out = scan_p.bind(
        *plain,
        *carry,
        *vals,
        *xs,
        jaxpr=new_body,
        length=length,
        reverse=reverse,
        num_consts=n_plain,
        num_carry=num_carry + k,
        unroll=unroll,
    )
    for r, v in zip(refs, out[num_carry : num_carry + k]):
        ref_set(r, None, v)
    return [*out[:num_carry], *out[num_carry + k :]]


def _cond_rewrite(index, *ops, branches):
    refs_at = [i for i, x in enumerate(ops) if is_ref(x)]
    if not refs_at:
        return NotImplemented
    refs = [ops[i] for i in refs_at]
    plain = [x for i, x in enumerate(ops) if i not in refs_at]
    new = []
    for b in branches:
        # Each branch takes (plain operands, ref values) and gives (results, ref values).
        fun, in_avals = _with_fresh_refs(b, refs_at, len(plain))

        def branch(*ins, fun=fun):
            outs, frozen = fun(*ins)
            return [*outs, *frozen]

        new.append(pe.trace_to_jaxpr(branch, in_avals))
    n_out = len(branches[0].out_avals)
    out = cond_p.bind(index, *plain, *[ref_get(r) for r in refs], branches=tuple(new))
    for r, v in zip(refs, out[n_out:]):
        ref_set(r, None, v)
    return list(out[:n_out])


def _while_rewrite(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc = args[:cond_nconsts], args[cond_nconsts : cond_nconsts + body_nconsts]
    carry = args[cond_nconsts + body_nconsts :]
    refs_at = [i for i, x in enumerate(bc) if is_ref(x)]
    if not refs_at or any(is_ref(x) for x in cc):
        return NotImplemented  # (a condition reading a ref: left to the error of the rules)
    k = len(refs_at)
    refs = [bc[i] for i in refs_at]
    plain = [x for i, x in enumerate(bc) if i not in refs_at]
    # The body takes (plain consts, carry, ref values) and gives (carry, ref values); the
    # condition takes the ref values too, and ignores them.
    fun, in_avals = _with_fresh_refs(body_jaxpr, refs_at, len(plain) + len(carry))

    def body(*ins):
        outs, frozen = fun(*ins)
        return [*outs, *frozen]

    def cond(*ins):
        return core.eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *ins[: len(ins) - k])

    new_body = pe.trace_to_jaxpr(body, in_avals)
    new_cond = pe.trace_to_jaxpr(cond, list(cond_jaxpr.in_avals) + in_avals[-k:])
    out = while_p.bind(
        *cc,
        *plain,
        *carry,
        *[ref_get(r) for r in refs],
        cond_jaxpr=new_cond,
        body_jaxpr=new_body,
        cond_nconsts=cond_nconsts,
        body_nconsts=len(plain),
    )
    for r, v in zip(refs, out[len(carry) :]):
        ref_set(r, None, v)
    return list(out[: len(carry)])


def _jit_rewrite(*args, jaxpr, name, **params):
    if not any(is_ref(x) for x in args):
        return NotImplemented
    # Inlined: the ref primitives in the program then see the caller's refs and their tangents.
    return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


ad.jvp_rewrites[scan_p] = _scan_rewrite
ad.jvp_rewrites[cond_p] = _cond_rewrite
ad.jvp_rewrites[while_p] = _while_rewrite
ad.jvp_rewrites[dispatch.jit_p] = _jit_rewrite


__all__: list[str] = []
