"""Golden cases for the ``accuracy=`` parameter (``lax.Tolerance``, ``lax.AccuracyMode``) of the
transcendental lax functions: one list, run by JAX (``tests/golden_gen/accuracy_gen.py``) and by
spmd (``tests/test_accuracy.py``), in the format of ``tests/cases_dot_algorithms.py``.
"""

from __future__ import annotations

import numpy as np
from cases_family import case_adder
from cases_lax_more import Case

CASES: list[Case] = []
JAXPR_CASES: list[str] = []
case = case_adder(CASES, JAXPR_CASES)

OPS = ["cbrt", "cos", "exp", "exp2", "expm1", "log", "log1p", "logistic"]
OPS += ["rsqrt", "sin", "sqrt", "tan", "tanh"]
POSITIVE = {"log", "log1p", "rsqrt", "sqrt"}  # ops taken on (0.1, 3.1)
X = np.linspace(-3.0, 3.0, 25).astype(np.float32)
XP = (np.abs(X) + 0.1).astype(np.float32)
# Each mode as made from the lax module the case runs with.
MODES = {
    "highest": lambda lax: lax.AccuracyMode.HIGHEST,
    "default": lambda lax: lax.AccuracyMode.DEFAULT,
    "tolerance": lambda lax: lax.Tolerance(atol=1e-3, rtol=1e-3),
}


for _op in OPS:
    for _m, _mode in MODES.items():
        case(
            f"{_op}_{_m}",
            lambda jnp, lax, op=_op, mode=_mode: lambda x: getattr(lax, op)(x, accuracy=mode(lax)),
            XP if _op in POSITIVE else X,
            grad=(0,),
            # (A Tolerance prints as its object: the module path differs from JAX's.)
            jaxpr=_m != "tolerance",
        )

# Derivatives of derivatives: the accuracy reaches the inner sin/cos/exp/logistic.
for _op in ("sin", "tanh", "expm1", "logistic"):
    case(
        f"{_op}_highest_second_derivative",
        lambda jnp, lax, op=_op: lambda x: _grad_of(lax, op)(x),
        X,
        jaxpr=True,
    )


def _grad_of(lax, op):
    import importlib

    jax = importlib.import_module(lax.__name__.split(".")[0])
    f = lambda v: getattr(lax, op)(v, accuracy=lax.AccuracyMode.HIGHEST)  # noqa: E731
    return jax.vmap(jax.grad(f))


# Anything else traces and is refused when run.
case(
    "exp_string_accuracy",
    lambda jnp, lax: lambda x: lax.exp(x, accuracy="HIGHEST"),
    X,
    error="NotImplementedError",
    match=r"^Accuracy HIGHEST not supported \(exp: accuracy must be .* got str 'HIGHEST'\)",
    jaxpr=True,
)
case(
    "tanh_int_accuracy",
    lambda jnp, lax: lambda x: lax.tanh(x, accuracy=3),
    X,
    error="NotImplementedError",
    match=r"^Accuracy 3 not supported \(tanh: .* got int 3\)",
)
case(
    "tolerance_negative",
    lambda jnp, lax: lambda x: lax.exp(x, accuracy=lax.Tolerance(atol=1e-3, ulps=-1)),
    X,
    error="ValueError",
    match=r"^Tolerances must be non-negative\. \(Tolerance got atol=0.001, rtol=0.0, ulps=-1\.\)",
)
case(
    "tolerance_all_zero",
    lambda jnp, lax: lambda x: lax.exp(x, accuracy=lax.Tolerance()),
    X,
    error="ValueError",
    match=r"^At least one of atol, rtol, or ulps must be set\. \(Tolerance got atol=0",
)
