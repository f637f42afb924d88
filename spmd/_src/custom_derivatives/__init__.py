"""Custom derivatives and rematerialization: ``custom_jvp`` (module ``jvp``), ``custom_vjp``
(``vjp``) and ``checkpoint`` (``checkpointing``), with what they share in ``common``. This package
is their namespace; its modules are re-exported here.

Each is a higher-order primitive when traced: the equation holds the primal function as a jaxpr
(its kernel runs that jaxpr) plus the user's rules as Python callables, which the autodiff and
batching rules call:

- ``custom_jvp_call``: its joint jvp rule calls the user's jvp function (under linearize that
  call is traced and split by partial evaluation, like any other program). Under vmap the jvp
  function is wrapped in a vmap of its own.
- ``custom_vjp_call``: its joint jvp rule runs the user's ``fwd`` for the primal outputs and
  residuals, and emits ``custom_lin(residuals, tangents)``, a linear primitive whose transpose
  calls the user's ``bwd``. Forward mode has no meaning for it: evaluating ``custom_lin`` raises
  JAX's TypeError.
- ``remat2`` (``checkpoint``): its jvp is the jvp of its body, staged as one ``remat2``; its
  partial-evaluation rule puts the primal computation on the known side and, on the unknown
  side, a ``remat2`` that recomputes what the tangent needs from the primal *inputs* (the only
  residuals, unless the policy saves an intermediate). Its transpose is again a ``remat2``.
- ``linear_call`` (module ``linear_call``): a function linear in some arguments with a
  user-given transpose; its transpose is a ``linear_call`` of that transpose.

In eager mode (no transformation active) the decorated function is simply called, as in JAX.

Values a decorated function closes over are hoisted out of its jaxpr into leading operands
(``num_consts``). The user's rules see them through their own Python closure, so a rule must not
close over a value that is being differentiated (JAX's restriction too; here it raises
UnexpectedTracerError with an explanation).

>>> import spmd, spmd.numpy as jnp
>>> @spmd.custom_jvp
... def log1pexp(x):
...     return jnp.log1p(jnp.exp(x))
>>> @log1pexp.defjvp
... def log1pexp_jvp(primals, tangents):
...     (x,), (t,) = primals, tangents
...     return log1pexp(x), t * (1 - 1 / (1 + jnp.exp(x)))
>>> spmd.grad(log1pexp)(100.0)
Array(1., dtype=float32)
"""

from spmd._src.custom_derivatives import checkpointing, common, jvp, symbolic, vjp

# The package's ``linear_call`` is the function (star-imported below), not its module.
from spmd._src.custom_derivatives import linear_call as _linear_call_module
from spmd._src.custom_derivatives.checkpointing import *  # noqa: F403
from spmd._src.custom_derivatives.common import *  # noqa: F403
from spmd._src.custom_derivatives.jvp import *  # noqa: F403
from spmd._src.custom_derivatives.linear_call import *  # noqa: F403
from spmd._src.custom_derivatives.symbolic import *  # noqa: F403
from spmd._src.custom_derivatives.vjp import *  # noqa: F403

__all__ = [
    *checkpointing.__all__,
    *common.__all__,
    *jvp.__all__,
    *_linear_call_module.__all__,
    *symbolic.__all__,
    *vjp.__all__,
]
