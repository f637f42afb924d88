"""Record JAX's transformed distributions (``cauchy``, ``pareto``, ``wald``, ...) into
``tests/golden/random_more.json``, as exact bit patterns.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/random_more_gen.py``.

The format, the modes (``jax_threefry_partitionable`` on and off) and the encoding are
``random_gen.py``'s, whose helpers this script loads. A case is plain data (``CASES``);
``call(random, np, case)`` runs it with either ``jax.random`` or ``spmd.random``, and
``tests/test_random_more.py`` compares every result bit for bit.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_HERE = Path(__file__).resolve().parent
OUT = _HERE.parent / "golden" / "random_more.json"

_spec = importlib.util.spec_from_file_location("random_gen", _HERE / "random_gen.py")
BASE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BASE)
encode = BASE.encode

MODES = BASE.MODES

_LOW = ("float16", "bfloat16")


def _cases() -> list[dict]:
    c: list[dict] = []

    def add(fn, **kw):
        c.append({"fn": fn, **kw})

    for seed in (0, 1, 7):
        add("cauchy", seed=seed, shape=[500])
    add("cauchy", seed=3, shape=[2, 3], typed=True)
    add("cauchy", seed=4, shape=[])
    for dt in _LOW:
        add("cauchy", seed=5, shape=[200], dtype=dt)
    for seed, sigma in ((0, 1.0), (1, 0.25), (2, 3.0)):
        add("lognormal", seed=seed, sigma=sigma, shape=[500])
    add("lognormal", seed=3)
    add("lognormal", seed=4, sigma=[0.5, 1.0, 2.0], typed=True)
    add("lognormal", seed=5, sigma=[[0.5], [1.5]], shape=[2, 4])
    # Parameters of the sample's full shape (XLA rewrites only broadcast ones).
    add("lognormal", seed=7, sigma=[0.3 + 0.37 * i for i in range(40)])
    for dt in _LOW:
        add("lognormal", seed=6, sigma=0.7, shape=[200], dtype=dt)
    for seed, b in ((0, 1.0), (1, 2.5), (2, 0.3)):
        add("pareto", seed=seed, b=b, shape=[500])
    add("pareto", seed=3, b=[1.0, 2.0, 5.0])
    add("pareto", seed=4, b=[[0.5], [4.0]], shape=[2, 5], typed=True)
    add("pareto", seed=6, b=[0.3 + 0.37 * i for i in range(40)])
    for dt in _LOW:
        add("pareto", seed=5, b=3.0, shape=[200], dtype=dt)
    for seed, scale in ((0, 1.0), (1, 0.5), (2, 4.0)):
        add("rayleigh", seed=seed, scale=scale, shape=[500])
    add("rayleigh", seed=3, scale=[1.0, 2.0, 3.0], typed=True)
    add("rayleigh", seed=4, scale=[[0.5], [2.0]], shape=[2, 3])
    for dt in _LOW:
        add("rayleigh", seed=5, scale=2.0, shape=[200], dtype=dt)
    for seed in (0, 1, 2):
        add("maxwell", seed=seed, shape=[500])
    add("maxwell", seed=3, shape=[2, 3], typed=True)
    add("maxwell", seed=4)
    for dt in _LOW:
        add("maxwell", seed=5, shape=[200], dtype=dt)
    add("double_sided_maxwell", seed=0, loc=0.0, scale=1.0, shape=[500])
    add("double_sided_maxwell", seed=1, loc=2.0, scale=0.5, shape=[500])
    add("double_sided_maxwell", seed=2, loc=[0.0, 1.0, -1.0], scale=2.0, shape=[4])
    add("double_sided_maxwell", seed=3, loc=[0.0, 1.0], scale=[[1.0], [3.0]], typed=True)
    for dt in _LOW:
        add("double_sided_maxwell", seed=4, loc=1.0, scale=2.0, shape=[200], dtype=dt)
    for seed, scale, conc in ((0, 1.0, 1.0), (1, 2.0, 0.5), (2, 0.5, 3.0), (3, 1.5, 1.7)):
        add("weibull_min", seed=seed, scale=scale, concentration=conc, shape=[500])
    add("weibull_min", seed=4, scale=[1.0, 2.0], concentration=[[0.5], [2.0]], shape=[3, 2, 2])
    add("weibull_min", seed=5, scale=1.0, concentration=2.0, shape=[2, 3], typed=True)
    # Small concentrations: powers underflow (XLA flushes denormals to zero).
    add("weibull_min", seed=7, scale=1.0, concentration=0.03, shape=[2000])
    for dt in _LOW:
        add("weibull_min", seed=6, scale=2.0, concentration=1.5, shape=[200], dtype=dt)
    for seed, mean in ((0, 1.0), (1, 0.25), (2, 3.0), (3, 10.0)):
        add("wald", seed=seed, mean=mean, shape=[500])
    add("wald", seed=4, mean=[0.5, 1.0, 2.0])
    add("wald", seed=5, mean=[[1.0], [2.0]], shape=[2, 3], typed=True)
    for dt in _LOW:
        add("wald", seed=6, mean=1.5, shape=[200], dtype=dt)
    add("triangular", seed=0, left=0.0, mode=0.5, right=1.0, shape=[500])
    add("triangular", seed=1, left=-1.0, mode=2.0, right=3.5, shape=[500])
    add("triangular", seed=2, left=0.0, mode=0.0, right=1.0, shape=[100])
    add("triangular", seed=3, left=[0.0, 1.0], mode=[0.25, 1.5], right=[1.0, 4.0])
    add("triangular", seed=4, left=0.0, mode=[[0.2], [0.8]], right=1.0, shape=[2, 3], typed=True)
    for dt in _LOW:
        add("triangular", seed=5, left=-2.0, mode=0.5, right=2.0, shape=[200], dtype=dt)
    for seed, p in ((0, 0.5), (1, 0.1), (2, 0.9), (3, 0.01)):
        add("geometric", seed=seed, p=p, shape=[500])
    add("geometric", seed=4, p=[0.2, 0.5, 0.7])
    add("geometric", seed=5, p=[[0.3], [0.6]], shape=[2, 3], typed=True)
    add("geometric", seed=6, p=0.3, shape=[50], dtype="int8")
    add("geometric", seed=7, p=0.3, shape=[50], p_dtype="float16")
    cov3 = [[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]]
    for method in ("cholesky", "eigh", "svd"):
        add("multivariate_normal", seed=0, mean=[0.0, 1.0, -1.0], cov=cov3, shape=[50],
            method=method)  # fmt: skip
    add("multivariate_normal", seed=1, mean=[1.0, 2.0], cov=[[1.0, 0.0], [0.0, 4.0]])
    add("multivariate_normal", seed=2, mean=[[0.0, 0.0], [1.0, 1.0]],
        cov=[[1.0, 0.9], [0.9, 1.0]], shape=[3, 2], typed=True)  # fmt: skip
    add("multivariate_normal", seed=3, mean=[0.0, 0.0, 0.0], cov=cov3, shape=[20], dtype="float16")
    add("multivariate_normal", seed=4, mean=[0.0, 0.0], cov=[[1.0, 1.0], [1.0, 1.0]],
        shape=[10], method="eigh")  # fmt: skip
    for seed, d, p, shape in ((0, 3, 2.0, [50]), (1, 2, 1.0, [20]), (2, 5, 3.5, [10]),
                              (3, 1, 2.0, []), (4, 4, 0.7, [3, 2]), (7, 8, 2.0, [10]),
                              (8, 20, 1.5, [4])):  # fmt: skip
        add("ball", seed=seed, d=d, p=p, shape=shape)
    add("ball", seed=9, d=3, p=2.0, shape=[5], typed=True)
    add("ball", seed=5, d=3, p=2, shape=[10], dtype="float16")
    add("ball", seed=6, d=3, p=2.0, shape=[10], dtype="bfloat16")
    # The generalized normal and exponential draws ball transforms (to check its arithmetic
    # where the draws differ from JAX's).
    add("ball_parts", seed=5, d=3, p=2, shape=[10], dtype="float16")
    add("ball_parts", seed=6, d=3, p=2.0, shape=[10], dtype="bfloat16")
    add("orthogonal", seed=0, n=3)
    add("orthogonal", seed=1, n=4, shape=[5])
    add("orthogonal", seed=2, n=2, m=5, typed=True)
    add("orthogonal", seed=3, n=5, m=2, shape=[2])
    return c


def _x64_cases() -> list[dict]:
    # float64 by default (XLA's float64 kernels are not reproduced: checked to a few ulp), and
    # float32 asked for explicitly, which stays exact.
    c = [
        {"fn": "cauchy", "seed": 0, "shape": [100]},
        {"fn": "lognormal", "seed": 1, "sigma": 0.5, "shape": [100]},
        {"fn": "pareto", "seed": 2, "b": 2.0, "shape": [100]},
        {"fn": "rayleigh", "seed": 3, "scale": 1.5, "shape": [100]},
        {"fn": "maxwell", "seed": 4, "shape": [100]},
        {"fn": "double_sided_maxwell", "seed": 5, "loc": 1.0, "scale": 2.0, "shape": [100]},
        {"fn": "weibull_min", "seed": 6, "scale": 1.0, "concentration": 1.5, "shape": [100]},
        {"fn": "wald", "seed": 7, "mean": 2.0, "shape": [100]},
        {"fn": "triangular", "seed": 8, "left": 0.0, "mode": 0.3, "right": 1.0, "shape": [100]},
        {"fn": "geometric", "seed": 9, "p": 0.3, "shape": [100]},
        {"fn": "ball", "seed": 10, "d": 3, "p": 2.0, "shape": [30]},
    ]
    c += [{**x, "seed": x["seed"] + 20, "dtype": "float32"} for x in c if x["fn"] != "geometric"]
    return c


CASES = _cases()
X64_CASES = _x64_cases()


def call(random, np, case: dict):
    """Run ``case`` with the module ``random`` (jax.random or spmd.random)."""
    fn = case["fn"]
    key = random.key(case["seed"]) if case.get("typed") else random.PRNGKey(case["seed"])
    kw = {k: v for k, v in case.items() if k not in ("fn", "seed", "typed", "p_dtype")}
    if "shape" in kw:
        kw["shape"] = tuple(kw["shape"])
    for name in ("sigma", "b", "scale", "loc", "concentration", "mean", "left", "mode", "right",
                 "cov"):  # fmt: skip
        if isinstance(kw.get(name), list):
            kw[name] = np.asarray(kw[name], np.float32)
    if fn == "ball_parts":
        k1, k2 = random.split(key)
        shape, d, dtype = kw["shape"], kw["d"], kw["dtype"]
        g = random.generalized_normal(k1, kw["p"], (*shape, d), dtype)
        e = random.exponential(k2, shape, dtype)
        return np.concatenate([np.asarray(g).ravel(), np.asarray(e).ravel()])
    if "p" in kw:
        kw["p"] = (
            np.asarray(kw["p"], case.get("p_dtype", "float32"))
            if isinstance(kw["p"], list) or "p_dtype" in case
            else kw["p"]
        )
    return getattr(random, fn)(key, **kw)


def main() -> None:
    BASE.run(__file__, OUT, lambda mode: X64_CASES if mode == "x64" else CASES, call)


if __name__ == "__main__":
    main()
