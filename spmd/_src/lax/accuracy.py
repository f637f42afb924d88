"""The ``accuracy=`` parameter of the transcendental lax functions (``cbrt``, ``cos``, ``exp``,
``exp2``, ``expm1``, ``log``, ``log1p``, ``logistic``, ``rsqrt``, ``sin``, ``sqrt``, ``tan``,
``tanh``): ``lax.Tolerance`` or ``lax.AccuracyMode``.

On CPU it changes no value: JAX 0.10.2 computes every one of these functions bit for bit the
same with ``AccuracyMode.HIGHEST``, ``AccuracyMode.DEFAULT`` or any ``Tolerance``, eagerly and
under jit (measured on 1001 points of [-3, 3]). What it changes:

* jaxprs record it (``exp[accuracy=AccuracyMode.HIGHEST] a``);
* derivatives: with ``AccuracyMode.HIGHEST``, ``expm1``'s is ``exp(x)``, ``tanh``'s is
  ``4 logistic(2x) logistic(-2x)`` and ``logistic``'s is ``logistic(x) logistic(-x)`` (JAX's
  rules, which round differently from the default ones); ``cos`` passes the accuracy on to the
  ``sin`` of its derivative (``sin`` does not under ``grad``; JAX's ``jvp`` of ``sin`` would);
* anything else given as the accuracy traces, and raises ``NotImplementedError`` when the
  program runs.

A call with an accuracy binds a twin of the primitive (same name, so jaxprs print alike) that
takes the parameter; calls without one bind the plain primitive, whose kernels stay NumPy ufuncs.

>>> from spmd import lax
>>> lax.sqrt(jnp.array([4.0, 9.0]), accuracy=lax.AccuracyMode.HIGHEST)
Array([2., 3.], dtype=float32)
"""

from __future__ import annotations

import enum
from typing import Any

from spmd._src import core
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters.ad import Zero


class Tolerance:
    """The accuracy a transcendental function must reach: absolute ``atol``, relative ``rtol``
    and ``ulps`` units in the last place (at most two of them are meant to be set; on CPU none
    changes the value).

    >>> Tolerance(atol=1e-3, ulps=2).ulps
    2
    """

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0:
            raise ValueError(
                f"Tolerances must be non-negative. (Tolerance got atol={atol}, rtol={rtol}, "
                f"ulps={ulps}.)"
            )
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError(
                "At least one of atol, rtol, or ulps must be set. (Tolerance got atol=0, "
                "rtol=0, ulps=0.)"
            )
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps


class AccuracyMode(enum.Enum):
    """Accuracy by name: ``HIGHEST`` or ``DEFAULT`` (on CPU both compute the same values)."""

    HIGHEST = 1
    DEFAULT = 2


def with_accuracy(prim: core.Primitive, x: Any, accuracy: Any) -> Any:
    """``prim`` (one of the transcendental primitives) applied to ``x`` with an ``accuracy``."""
    if accuracy is None:
        return prim.bind(x)
    return _twin(prim).bind(x, accuracy=accuracy)


def _check(name: str, accuracy: Any) -> None:
    # JAX accepts any value when tracing, and refuses it when lowering.
    if not isinstance(accuracy, (Tolerance, AccuracyMode)):
        raise NotImplementedError(
            f"Accuracy {accuracy} not supported ({name}: accuracy must be None, a lax.Tolerance "
            f"or a lax.AccuracyMode, got {type(accuracy).__name__} {accuracy!r})"
        )


_TWINS: dict[core.Primitive, core.Primitive] = {}


def _twin(prim: core.Primitive) -> core.Primitive:
    twin = _TWINS.get(prim)
    if twin is None:
        twin = _TWINS[prim] = _make_twin(prim)
    return twin


def _make_twin(prim: core.Primitive) -> core.Primitive:
    twin = core.Primitive(prim.name)
    name, impl, abstract_eval = prim.name, prim.impl, prim.abstract_eval

    def twin_impl(x, *, accuracy):
        _check(name, accuracy)
        return impl(x)

    def twin_abstract_eval(x, *, accuracy):
        return abstract_eval(x)

    def twin_vmap(axis_data, vals, dims, *, accuracy):
        return twin.bind(vals[0], accuracy=accuracy), dims[0]

    plain_jvp = ad.primitive_jvps[prim]

    def twin_jvp(primals, tangents, primal_out, *, accuracy):
        (x,), (t,) = primals, tangents
        rule = _JVPS.get(name)
        if type(t) is Zero or rule is None:
            return plain_jvp(primals, tangents, primal_out)
        out = rule(t, primal_out, x, accuracy)
        return plain_jvp(primals, tangents, primal_out) if out is None else out

    twin.def_impl(twin_impl)
    twin.def_abstract_eval(twin_abstract_eval)
    batching.primitive_batchers[twin] = twin_vmap
    ad.primitive_jvps[twin] = twin_jvp
    for rules in (sharding_rules.sharding_rules, sharding_rules.explicit_rules):
        if prim in rules:
            rules[twin] = _without_accuracy(rules[prim])
    if prim in sharding_rules.backward_rules:
        rules = sharding_rules.backward_rules
        rules[twin] = _without_accuracy(rules[prim])
    return twin


def _without_accuracy(rule):
    return lambda *args, accuracy=None, **params: rule(*args, **params)


# ---------------------------------------------------------------------------------------------
# Derivatives that depend on the accuracy (JAX's rules); None: the plain rule.


def _ops():
    from spmd._src.lax.elementwise import arithmetic, transcendental

    return arithmetic, transcendental


def _cos_jvp(g, ans, x, accuracy):
    a, t = _ops()
    return a.neg(a.mul(g, t.sin(x, accuracy=accuracy)))


def _expm1_jvp(g, ans, x, accuracy):
    if accuracy is not AccuracyMode.HIGHEST:
        return None
    a, t = _ops()
    return a.mul(g, t.exp(x, accuracy=accuracy))


def _tanh_jvp(g, ans, x, accuracy):
    if accuracy is not AccuracyMode.HIGHEST:
        return None
    from spmd._src.lax.elementwise.common import _const

    a, t = _ops()
    up = t.logistic(a.mul(_const(x, 2), x), accuracy=accuracy)
    down = t.logistic(a.mul(_const(x, -2), x), accuracy=accuracy)
    return a.mul(g, a.mul(_const(x, 4), a.mul(up, down)))


def _logistic_jvp(g, ans, x, accuracy):
    if accuracy is not AccuracyMode.HIGHEST:
        return None
    a, t = _ops()
    return a.mul(g, a.mul(ans, t.logistic(a.neg(x))))


_JVPS = {
    # sin: JAX's jvp passes the accuracy on to cos, but grad (its linearization rule) does
    # not; spmd differentiates one way for both, and follows grad.
    "cos": _cos_jvp,
    "expm1": _expm1_jvp,
    "tanh": _tanh_jvp,
    "logistic": _logistic_jvp,
}

__all__ = ["AccuracyMode", "Tolerance"]
