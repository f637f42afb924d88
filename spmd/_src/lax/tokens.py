"""Tokens: ``lax.create_token`` and ``lax.after_all``, values of type ``Tok`` that carry no data
(XLA orders side effects by threading them; JAX 0.10.2 keeps them for old programs).

``create_token()`` makes one, ``after_all(*tokens)`` joins several into one. Eagerly (and under
grad, jvp, vmap) both give ``Token`` objects; in a traced program (jit, make_jaxpr) they are
``Tok`` values (``a:Tok = create_token``). A token returned from ``spmd.jit`` comes back as a
new ``Token``, as in JAX (inside compiled programs a token's value is a rank-0 bool placeholder).

>>> from spmd import lax
>>> t = lax.after_all(lax.create_token(), lax.create_token())
>>> type(t).__name__
'Token'
"""

from __future__ import annotations

import numpy as np

from spmd._src import core
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching


class AbstractToken(ShapedArray):
    """The type of tokens, printed ``Tok`` (a rank-0 bool in NumPy kernels)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((), np.bool_)

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractToken

    def __hash__(self) -> int:
        return hash(AbstractToken)

    def str_short(self, short_dtypes: bool = True) -> str:
        return "Tok"

    def __repr__(self) -> str:
        return "AbstractToken()"

    __str__ = __repr__  # as JAX's (jaxprs print str_short)


abstract_token = AbstractToken()


class Token:
    """A token (no data): made by ``lax.create_token`` and joined by ``lax.after_all``."""

    __slots__ = ()
    aval = abstract_token

    def block_until_ready(self) -> None:
        return None  # nothing to wait for; JAX's returns None too (not the token)

    # No __array__: as JAX's, NumPy sees a token as an object (np.asarray gives an object
    # array, jnp.asarray refuses it); a token argument of jit passes into the program as that
    # object array, which no kernel reads.


def token_positions(avals) -> tuple[int, ...]:
    """The positions of the tokens among ``avals`` (a program's results): jit gives them back
    as ``Token`` objects."""
    return tuple(i for i, a in enumerate(avals) if type(a) is AbstractToken)


def create_token(_=None):
    """A new token (the argument, if any, is ignored).

    >>> from spmd import lax
    >>> lax.create_token()  # doctest: +ELLIPSIS
    <spmd._src.lax.tokens.Token object at 0x...>
    """
    if not _staging():
        return Token()
    return create_token_p.bind()


def after_all(*operands):
    """One token that comes after all of ``operands`` (tokens; none: a new token)."""
    for i, x in enumerate(operands):
        aval = core.get_aval(x) if core.valid_jaxtype(x) else None
        if type(aval) is not AbstractToken:
            what = aval.str_short() if aval is not None else type(x).__name__
            raise TypeError(
                f"Arguments to after_all must be tokens (after_all: argument {i} of "
                f"{len(operands)} is {what})"
            )
    if not _staging():
        return Token()
    return after_all_p.bind(*operands)


def _staging() -> bool:
    """Whether a program is being traced (jit, make_jaxpr): tokens are then staged into it.
    Elsewhere (eagerly, under grad/jvp/vmap) a token is made at once: it has no data, no
    tangent and no batch dimension."""
    from spmd._src.interpreters.partial_eval import JaxprTrace

    return isinstance(core.trace_ctx.trace, JaxprTrace)


def _token_impl(*_tokens):
    return np.zeros((), np.bool_)


def _token_abstract_eval(*_avals):
    return abstract_token


def _token_jvp(primals, tangents, primal_out, **params):
    return ad.Zero(ad.tangent_aval(abstract_token))  # tokens carry no tangent


def _token_vmap(prim):
    def rule(axis_data, vals, dims, **params):
        # A token has no data to map over: one token for the whole batch.
        return prim.bind(*vals, **params), None

    return rule


create_token_p = core.Primitive("create_token")
after_all_p = core.Primitive("after_all")
for _p in (create_token_p, after_all_p):
    _p.def_impl(_token_impl)
    _p.def_abstract_eval(_token_abstract_eval)
    batching.primitive_batchers[_p] = _token_vmap(_p)
    ad.primitive_jvps[_p] = _token_jvp


__all__ = ["after_all", "after_all_p", "create_token", "create_token_p", "token_positions"]
