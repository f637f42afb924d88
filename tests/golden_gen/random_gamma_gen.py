"""Record JAX's gamma-family samplers into ``tests/golden/random_gamma.json`` as bit patterns.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/random_gamma_gen.py``.

Built on ``random_gen.py`` (its modes, ``encode`` and array descriptions): cases are plain data
(``CASES``, ``X64_CASES``) and ``call(random, np, case)`` runs one with either ``jax.random`` or
``spmd.random``, directly or through a transformation (``"via"``: ``jit``, ``vmap_keys``,
``vmap_a``, ``grad``), so ``tests/test_random_gamma.py`` replays them bit for bit.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
OUT = _HERE.parent / "golden" / "random_gamma.json"

_spec = importlib.util.spec_from_file_location("random_gen", _HERE / "random_gen.py")
RG = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RG)
encode = RG.encode

# Edge values of a: zero, negative, tiny, huge, inf and NaN, as JAX samples them.
EDGES = [0.0, -1.0, 1e-30, 1e30, float("inf"), float("nan"), 1e-4, 0.999, 1.0, 1.001]


def _cases() -> list[dict]:
    c: list[dict] = []

    def add(fn, **kw):
        c.append({"fn": fn, **kw})

    for fn in ("gamma", "loggamma"):
        for seed, a in ((0, 0.01), (1, 0.1), (2, 0.5), (3, 0.9), (4, 1.0), (5, 1.5), (6, 3.0)):
            add(fn, seed=seed, a=a, shape=[500])
        add(fn, seed=7, a=100.0, shape=[200])
        add(fn, seed=8, a=1e4, shape=[100])
        add(fn, seed=9, a="geom:0.01,300,400")
        add(fn, seed=10, a=EDGES)
        add(fn, seed=11, a=[[0.2], [1.0], [7.5]], shape=[2, 3, 4])
        add(fn, seed=12, a=2.5, shape=[])
        add(fn, seed=13, a="geom:0.05,50,12", typed=True)
        add(fn, seed=14, a=2, shape=[5])  # an int a is converted to the float dtype
        for dt in ("float16", "bfloat16"):
            add(fn, seed=15, a="geom:1,300,200", dtype=dt)
        add(fn, seed=16, a="geom:0.01,300,40", via="jit")
        add(fn, seed=17, a=[0.3, 2.0, 9.0], via="vmap_keys", num=4)
        add(fn, seed=18, a="geom:0.05,30,6", via="vmap_a")
        add(fn, seed=19, a="geom:0.05,30,8", via="vmap_keys", num=3, typed=True)
        add(fn, seed=20, a="geom:0.05,80,64", via="grad")
    for seed, (a, b) in enumerate(((0.5, 0.5), (1.0, 1.0), (2.0, 5.0), (0.05, 30.0), (300.0, 2.0))):
        add("beta", seed=seed, a=a, b=b, shape=[300])
    add("beta", seed=5, a="geom:0.02,50,100", b="ramp:100")
    add("beta", seed=6, a=[[0.3], [4.0]], b=[1.0, 2.0, 3.0], shape=[5, 2, 3], typed=True)
    add("beta", seed=7, a="geom:0.1,20,8", b=2.0, via="grad")
    add("beta", seed=8, a="geom:0.1,20,8", b=2.0, via="vmap_a")
    add("dirichlet", seed=0, a=[1.0, 1.0, 1.0], shape=[100])
    add("dirichlet", seed=1, a="geom:0.01,10,5", shape=[50])
    add("dirichlet", seed=2, a=[[0.1, 0.2, 0.7, 3.0], [5.0, 5.0, 5.0, 5.0]])
    add("dirichlet", seed=3, a="geom:0.5,50,20", shape=[4, 3], via="vmap_keys", num=2)
    add("dirichlet", seed=4, a=[0.3, 2.0, 9.0], shape=[10], dtype="bfloat16")
    for seed, df in enumerate((0.5, 1.0, 2.0, 7.0, 100.0)):
        add("chisquare", seed=seed, a=df, shape=[300])
        add("t", seed=seed, a=df, shape=[300])
        add("f", seed=seed, a=df, b=3.0, shape=[300])
        add("generalized_normal", seed=seed, a=[0.5, 1.0, 2.0, 3.0, 8.0][seed], shape=[300])
    add("chisquare", seed=5, a="geom:0.1,100,50", typed=True)
    add("t", seed=5, a="geom:0.1,100,50", via="jit")
    add("f", seed=5, a="geom:0.1,100,50", b="geom:100,0.1,50")
    add("f", seed=6, a=[[1.0], [4.0]], b=[[2.0, 9.0, 30.0]], shape=[2, 3], via="vmap_keys", num=3)
    add("generalized_normal", seed=5, a="geom:0.3,10,40", shape=[40])
    add("generalized_normal", seed=6, a=1.5, shape=[2, 3], typed=True)
    add("t", seed=6, a=4.0, shape=[100], dtype="float16")
    add("chisquare", seed=6, a="geom:0.2,20,6", via="grad")
    for seed, lam in enumerate((0.5, 3.0, 9.9, 10.0, 50.0, 1e4)):
        add("poisson", seed=seed, a=lam, shape=[300])
    add("poisson", seed=6, a=[0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 1e4, float("nan"), -1.0, 2.0])
    add("poisson", seed=7, a="geom:0.1,1000,60", typed=True)
    add("poisson", seed=8, a=[[1.0], [30.0]], shape=[3, 2, 4], dtype="int16")
    add("poisson", seed=9, a="geom:0.5,100,5", via="vmap_keys", num=3)
    add("poisson", seed=10, a="geom:0.5,100,6", via="vmap_a")
    for seed, (n, p) in enumerate(
        ((5.0, 0.3), (20.0, 0.5), (50.0, 0.4), (1000.0, 0.7), (8.0, 0.95))
    ):
        add("binomial", seed=seed, a=n, b=p, shape=[300])
    edge_n = [0.0, 5.0, 10.0, 100.0, 1e4, -1.0, float("nan"), float("inf"), 20.0, 30.0, 15.0]
    edge_p = [0.5, 0.3, 0.9, 0.2, 0.5, 0.5, 0.5, 0.5, -0.1, float("nan"), 0.95]
    add("binomial", seed=5, a=edge_n, b=edge_p)
    add("binomial", seed=6, a="geom:1,5000,50", b="ramp:50", typed=True)
    add("binomial", seed=7, a=[[3.0], [300.0]], b=[0.1, 0.5, 0.8], shape=[2, 3], via="jit")
    add("binomial", seed=8, a="geom:1,500,6", b=0.3, via="vmap_a")
    add("multinomial", seed=0, a=10.0, b=[0.2, 0.3, 0.5])
    add("multinomial", seed=1, a=10.0, b=[0.2, 0.3, 0.5], shape=[40, 3])
    add("multinomial", seed=2, a=[100.0, 1000.0], b="ramp:10", shape=[2, 10])
    add("multinomial", seed=3, a=50.0, b=[0.5, 0.0, 0.25, 0.25], dtype="int32", typed=True)
    add("multinomial", seed=4, a=25.0, b=[0.1, 0.6, 0.3], via="vmap_keys", num=3)
    return c


def _x64_cases() -> list[dict]:
    return [
        {"fn": "gamma", "seed": 0, "a": "geom:0.05,300,200", "dtype": "float64"},
        {"fn": "loggamma", "seed": 1, "a": "geom:0.05,300,200", "dtype": "float64"},
        {"fn": "gamma", "seed": 2, "a": "geom:0.05,300,50"},
        {"fn": "beta", "seed": 3, "a": "geom:0.1,50,40", "b": 2.0, "dtype": "float64"},
        {"fn": "t", "seed": 4, "a": 3.0, "shape": [50], "dtype": "float64"},
        {"fn": "poisson", "seed": 5, "a": "geom:0.5,5000,40"},
        {"fn": "binomial", "seed": 6, "a": "geom:1,5000,40", "b": 0.3},
        {"fn": "multinomial", "seed": 7, "a": 30.0, "b": [0.2, 0.3, 0.5], "shape": [5, 3]},
    ]


CASES = _cases()
X64_CASES = _x64_cases()
# Cases of narrow floats and float64 are compared to within these ulps (see the test file).
NARROW = ("float16", "bfloat16")
# Samplers whose dtype is not their parameters' (integer counts, or a dtype for the counts).
INT_OR_MIXED = ("poisson", "multinomial")


def param(np, spec, dtype="float32"):
    """A parameter from its description: ``"geom:lo,hi,n"`` (n geometrically spaced values),
    a list, a scalar, or one of ``random_gen``'s descriptions."""
    if isinstance(spec, str) and spec.startswith("geom:"):
        lo, hi, n = spec[5:].split(",")
        v = np.exp(np.linspace(np.log(float(lo)), np.log(float(hi)), int(n)))
        return v.astype(dtype)
    if isinstance(spec, list):
        return np.asarray(spec, dtype=dtype)
    return RG._array(np, spec, dtype)


def call(random, np, case: dict):
    """Run ``case`` with ``random`` (jax.random or spmd.random); returns an array. Parameters
    are ``a`` (and ``b`` for beta and f); transformations act on the key and on ``a``."""
    fn = getattr(random, case["fn"])
    key = random.key(case["seed"]) if case.get("typed") else random.PRNGKey(case["seed"])
    default = () if case["fn"] == "generalized_normal" else None
    shape = tuple(case["shape"]) if "shape" in case else default
    dtype = case.get("dtype")

    def arg(spec):
        if isinstance(spec, (int, float)):
            return spec
        return param(np, spec, "float32" if case["fn"] in INT_OR_MIXED else dtype or "float32")

    a = arg(case["a"])
    rest = (arg(case["b"]),) if "b" in case else ()

    def sample(k, a, *rest):
        if case["fn"] == "multinomial":
            return fn(k, a, *rest, shape=shape, dtype=dtype)
        return fn(k, a, *rest, shape, dtype)

    via = case.get("via")
    spmd_or_jax = sys.modules[random.__name__.rpartition(".")[0]]
    # Parameters are arguments, never closed-over constants (XLA folds those differently).
    if via is None:
        return sample(key, a, *rest)
    if via == "jit":
        return spmd_or_jax.jit(sample)(key, a, *rest)
    if via == "vmap_keys":
        keys = random.split(key, case["num"])
        return spmd_or_jax.vmap(sample, in_axes=(0, None) + (None,) * len(rest))(keys, a, *rest)
    if via == "vmap_a":
        return spmd_or_jax.vmap(sample, in_axes=(None, 0) + (None,) * len(rest))(key, a, *rest)
    if via == "grad":
        return spmd_or_jax.grad(lambda a, *rest: sample(key, a, *rest).sum())(a, *rest)
    raise ValueError(via)


def _cases_for(mode: str) -> list[dict]:
    if mode == "x64":
        return X64_CASES
    if mode == "original":  # a sample of the direct calls: the layout only changes the bits
        return [c for c in CASES if c.get("via") is None][::3]
    return CASES


def main() -> None:
    RG.run(__file__, OUT, _cases_for, call)


if __name__ == "__main__":
    main()
