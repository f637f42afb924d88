"""Record JAX's ``lax.rng_bit_generator`` and its 'rbg'/'unsafe_rbg' PRNGs into
``tests/golden/rng_bit_generator.json``, as exact bit patterns.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/rng_bit_generator_gen.py``.

A case is plain data (``CASES``); ``call(jax, np, case)`` runs it with either ``jax`` or ``spmd``
(``x64`` cases with ``jax_enable_x64`` on, ``impl`` cases with ``jax_default_prng_impl`` set), so
``tests/test_rng_bit_generator.py`` loads this file for ``CASES`` and ``call`` and compares every
result bit for bit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "golden" / "rng_bit_generator.json"

ALGORITHMS = ("RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX")
KEYS = (
    [1, 2, 3, 4],
    [0, 0, 0, 0],
    [0xDEADBEEF, 0x12345678, 42, 7],
    # Counters next to 2**64: the low word wraps and (Philox) carries into the high half.
    [5, 6, 0xFFFFFFFE, 0xFFFFFFFF],
)
SHAPES = ([], [1], [5], [8], [2, 3], [3, 5], [7, 1, 3], [4, 6], [0], [3, 0, 2])


SAMPLERS = {
    "bernoulli": lambda r, jnp, k: r.bernoulli(k, 0.5, (6,)),
    "exponential": lambda r, jnp, k: r.exponential(k, (5,)),
    "gumbel": lambda r, jnp, k: r.gumbel(k, (5,)),
    "laplace": lambda r, jnp, k: r.laplace(k, (5,)),
    "truncated_normal": lambda r, jnp, k: r.truncated_normal(k, -1.0, 1.0, (5,)),
    "categorical": lambda r, jnp, k: r.categorical(k, jnp.zeros(5), shape=(6,)),
    "binomial": lambda r, jnp, k: r.binomial(k, 10, 0.3, (6,)),
    "multinomial": lambda r, jnp, k: r.multinomial(k, 10, jnp.array([0.2, 0.3, 0.5])),
    "cauchy": lambda r, jnp, k: r.cauchy(k, (5,)),
    "maxwell": lambda r, jnp, k: r.maxwell(k, (5,)),
    "rademacher": lambda r, jnp, k: r.rademacher(k, (6,)),
}


def _cases() -> list[dict]:
    c: list[dict] = []

    def add(fn, **kw):
        c.append({"fn": fn, **kw})

    for alg in ALGORITHMS:
        for i, key in enumerate(KEYS):
            for dtype in ("uint8", "uint16", "uint32"):
                for shape in SHAPES[i % 2 :: 2] if dtype != "uint32" else SHAPES:
                    add("rbg", key=key, shape=shape, dtype=dtype, alg=alg)
            for shape in SHAPES[::3]:
                add("rbg", key=key, shape=shape, dtype="uint64", alg=alg, x64=True)
        add("rbg", key=[9, 8, 7, 6], shape=[1000], dtype="uint32", alg=alg)
        add("rbg", key=[9, 8, 7, 6], shape=[33, 17], dtype="uint64", alg=alg, x64=True)
        # A uint64[2] key (x64 only) and the wrapping counter through it.
        add("rbg", key=[5, 2**64 - 1], shape=[3, 2], dtype="uint32", alg=alg, x64=True)
        add("rbg", key=[2**63 + 1, 12], shape=[5], dtype="uint64", alg=alg, x64=True)
        add("rbg_jit", key=[1, 2, 3, 4], shape=[2, 5], dtype="uint8", alg=alg)
        add("rbg_vmap", keys=[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], shape=[2], alg=alg)
        add("rbg_vmap", keys=[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], shape=[3, 2],
            alg=alg, in_axes=1, dtype="uint16")  # fmt: skip
    add("rbg_vmap_unbatched", key=[1, 2, 3, 4], n=3, shape=[4])
    add("rbg_jaxpr", shape=[3, 2], dtype="uint8", alg="RNG_THREE_FRY")
    add("rbg_jaxpr", shape=[4], dtype="uint32", alg="RNG_DEFAULT")

    # rng_uniform's first call in a process (each recorded from a fresh JAX process).
    add("rng_uniform_first", a=0.0, b=1.0, shape=[3])
    add("rng_uniform_first", a=-3.0, b=5.0, shape=[2, 3])
    add("rng_uniform_first", a=0, b=10, shape=[5])
    add("rng_uniform_first", a=0.0, b=1.0, shape=[7], dtype="float16")
    add("rng_uniform_first", a=0.0, b=1.0, shape=[3], jit=True)

    for impl in ("rbg", "unsafe_rbg"):
        for typed in (False, True):
            for seed in (0, 42, -1, 2**31 - 1):
                add("PRNGKey", impl=impl, seed=seed, typed=typed)
            add("split", impl=impl, seed=0, typed=typed)
            add("split", impl=impl, seed=42, num=5, typed=typed)
            add("split", impl=impl, seed=7, num=[2, 3], typed=typed)
            add("fold_in", impl=impl, seed=0, data=7, typed=typed)
            add("fold_in", impl=impl, seed=42, data=2**32 - 1, typed=typed)
            add("bits", impl=impl, seed=1, shape=[7], typed=typed)
            add("bits", impl=impl, seed=2, shape=[3, 5], dtype="uint8", typed=typed)
            add("bits", impl=impl, seed=3, shape=[9], dtype="uint16", typed=typed)
            add("uniform", impl=impl, seed=0, shape=[100], typed=typed)
            add("uniform", impl=impl, seed=4, shape=[50], dtype="bfloat16", typed=typed)
            add("normal", impl=impl, seed=1, shape=[100], typed=typed)
            add("normal", impl=impl, seed=3, shape=[20], dtype="float16", typed=typed)
            add("randint", impl=impl, seed=0, shape=[100], minval=0, maxval=10, typed=typed)
            add("randint", impl=impl, seed=5, shape=[30], minval=-7, maxval=300, typed=typed)
            add("split_vmap", impl=impl, seed=11, typed=typed)
            add("fold_in_vmap", impl=impl, seed=14, typed=typed)
            add("fold_in_vmap_data", impl=impl, seed=15, typed=typed)
            add("bits_vmap", impl=impl, seed=12, typed=typed)
            add("split_bits", impl=impl, seed=13, typed=typed)
        add("bits", impl=impl, seed=1, shape=[6], dtype="uint64", x64=True)
        add("uniform", impl=impl, seed=0, shape=[20], dtype="float64", x64=True)
        add("wrap_key_data", impl=impl, data=[[1, 2, 3, 4], [5, 6, 7, 8]])
        # A typed key of another impl than the default: its own implementation decides.
        add("split", impl=impl, seed=3, typed=True, default="threefry2x32")
        add("fold_in", impl=impl, seed=3, data=9, typed=True, default="threefry2x32")
        add("randint", impl=impl, seed=3, shape=[10], minval=0, maxval=100, typed=True,
            default="threefry2x32")  # fmt: skip
        for fn in ("permutation", "choice", "choice_unique", "normal_complex"):
            add(fn, impl=impl, seed=5, typed=True, default="threefry2x32")
        # The other samplers that take rbg keys (the Gamma family and poisson do not).
        for name in SAMPLERS:
            add("sampler", name=name, impl=impl, seed=7, typed=False)
            # binomial and multinomial split inside by the default implementation: a typed
            # unsafe_rbg key under another default is not split as in JAX.
            if impl == "rbg" or name not in ("binomial", "multinomial"):
                add("sampler", name=name, impl=impl, seed=6, typed=True, default="threefry2x32")
    return c


CASES = _cases()


def _key(jax, case):
    impl = case["impl"]
    if case.get("typed"):
        return jax.random.key(case["seed"], impl=impl)
    return jax.random.PRNGKey(case["seed"], impl=impl)


def call(jax, np, case: dict):
    """Run ``case`` with ``jax`` (jax or spmd); returns a list of arrays (keys as key data).
    The caller sets ``jax_enable_x64`` (``case['x64']``) and ``jax_default_prng_impl``
    (``case['default']``, else ``case['impl']``)."""
    lax, random, jnp = jax.lax, jax.random, jax.numpy
    fn = case["fn"]
    if fn.startswith("rbg"):
        alg = getattr(lax.RandomAlgorithm, case.get("alg", "RNG_DEFAULT"))
        dtype = getattr(jnp, case.get("dtype", "uint32"))
        shape = tuple(case["shape"])

        def gen(k):
            return lax.rng_bit_generator(k, shape, dtype=dtype, algorithm=alg)

        if fn == "rbg":
            wide = len(case["key"]) == 2
            key = jnp.array(np.array(case["key"], np.uint64 if wide else np.uint32))
            return list(gen(key))
        if fn == "rbg_jit":
            return list(jax.jit(gen)(jnp.array(case["key"], jnp.uint32)))
        if fn == "rbg_vmap":
            keys = jnp.array(case["keys"], jnp.uint32)
            return list(jax.vmap(gen, in_axes=case.get("in_axes", 0))(keys))
        if fn == "rbg_vmap_unbatched":
            xs = jnp.arange(case["n"])
            key = jnp.array(case["key"], jnp.uint32)
            return list(jax.vmap(lambda x: gen(key))(xs))
        if fn == "rbg_jaxpr":
            text = str(jax.make_jaxpr(gen)(jnp.zeros(4, jnp.uint32)))
            return [np.frombuffer(text.encode(), np.uint8)]
    if fn == "rng_uniform_first":
        if jax.__name__ == "spmd":  # the stream as a fresh process has it
            from spmd._src.lax import rng_bit_generator as rbg

            rbg._uniform_counter[0] = rbg._UNIFORM_COUNTER_START
        dt = getattr(jnp, case["dtype"]) if "dtype" in case else (lambda v: v)
        a, b, shape = dt(case["a"]), dt(case["b"]), tuple(case["shape"])
        if case.get("jit"):
            return [jax.jit(lambda: lax.rng_uniform(a, b, shape))()]
        return [lax.rng_uniform(a, b, shape)]
    if fn == "wrap_key_data":
        keys = random.wrap_key_data(jnp.array(case["data"], jnp.uint32), impl=case["impl"])
        return [random.key_data(keys), random.key_data(random.split(keys[1]))]
    key = _key(jax, case)
    shape = tuple(case["shape"]) if "shape" in case else None
    dtype = case.get("dtype")
    if fn == "PRNGKey":
        out = key
    elif fn == "split":
        num = case.get("num", 2)
        out = random.split(key, tuple(num) if isinstance(num, list) else num)
    elif fn == "fold_in":
        out = random.fold_in(key, case["data"])
    elif fn == "bits":
        out = random.bits(key, shape, dtype=dtype)
    elif fn == "uniform":
        out = random.uniform(key, shape, dtype=dtype)
    elif fn == "normal":
        out = random.normal(key, shape, dtype=dtype)
    elif fn == "randint":
        out = random.randint(key, shape, case["minval"], case["maxval"])
    elif fn == "permutation":
        out = random.permutation(key, np.arange(12).reshape(3, 4), axis=1)
    elif fn == "choice":
        out = random.choice(key, 10, (3,))
    elif fn == "choice_unique":
        out = random.choice(key, 10, (3,), replace=False)
    elif fn == "normal_complex":
        out = random.normal(key, (3,), dtype=jnp.complex64)
    elif fn == "sampler":
        out = SAMPLERS[case["name"]](random, jnp, key)
    elif fn == "split_vmap":
        out = jax.vmap(lambda k: random.split(k, 3))(random.split(key, 4))
    elif fn == "fold_in_vmap":  # keys batched, the message not
        out = jax.vmap(lambda k: random.fold_in(k, 7))(random.split(key, 3))
    elif fn == "fold_in_vmap_data":
        out = jax.vmap(lambda d: random.fold_in(key, d))(jnp.arange(3))
    elif fn == "bits_vmap":
        out = jax.vmap(lambda k: random.bits(k, (5,)))(random.split(key, 3))
    elif fn == "split_bits":
        # Keys split from keys, then used: the common pattern of a training loop.
        k1, k2 = random.split(key)
        out = jnp.concatenate([random.bits(random.split(k1)[1], (4,)), random.bits(k2, (4,))])
    else:
        raise ValueError(fn)
    if str(getattr(out, "dtype", "")).startswith("key<"):
        out = random.key_data(out)
    return [out]


def encode(np, outs) -> list[dict]:
    """Arrays as their dtype, shape and bit patterns (unsigned integers)."""
    recs = []
    for out in outs:
        a = np.asarray(out)
        bits = a.view(f"u{a.dtype.itemsize}")
        recs.append({"dtype": a.dtype.name, "shape": list(a.shape), "bits": bits.ravel().tolist()})
    return recs


def run_case(jax, np, case: dict):
    """``call`` with the case's configuration set (and restored)."""
    old = (jax.config.jax_enable_x64, jax.config.jax_default_prng_impl)
    jax.config.update("jax_enable_x64", bool(case.get("x64")))
    jax.config.update("jax_default_prng_impl", case.get("default", case.get("impl", old[1])))
    try:
        return encode(np, call(jax, np, case))
    finally:
        jax.config.update("jax_enable_x64", old[0])
        jax.config.update("jax_default_prng_impl", old[1])


def _in_fresh_process(case: dict) -> list[dict]:
    res = subprocess.run(
        [sys.executable, __file__, "--case", json.dumps(case)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(res.stdout)


def main() -> None:
    import jax
    import numpy as np

    if "--case" in sys.argv:
        print(json.dumps(run_case(jax, np, json.loads(sys.argv[sys.argv.index("--case") + 1]))))
        return
    records = [
        {
            "case": c,
            "out": _in_fresh_process(c) if c["fn"] == "rng_uniform_first" else run_case(jax, np, c),
        }
        for c in CASES
    ]
    OUT.write_text(json.dumps({"jax_version": jax.__version__, "records": records}) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
