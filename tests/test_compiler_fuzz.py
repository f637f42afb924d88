"""The jit compiler's rewrites (call inlining, transposed dots, reordering for in-place
writes, buffer reuse) against eager execution, on random programs.

Each program is a random DAG over float32 (64, 128) arrays (64 x 128 = 8192 elements: above
the size from which buffers are reused) of elementwise kernels (ufuncs and select_n, which
takes ``out=``), identity-like kernels whose result shares its operand's buffer
(stop_gradient, a double transpose, reshapes), reductions, a dot, a cond and a loop,
with several outputs and operands used many times. Compiled and eager results must be equal
bit for bit, and the arguments untouched.
"""

from __future__ import annotations

import numpy as np
import pytest

import spmd
from spmd import lax

SHAPE = (64, 128)


def _cond(a, b):
    return lax.cond(a[0, 0] > b[0, 0], lambda u, v: u * 2.0, lambda u, v: v, a, b)


def _loop(a):
    # Static bounds: a scan, so reverse mode works too.
    return lax.fori_loop(0, 2, lambda i, c: c * 0.5 + 1.0, a)


def _ops():
    """(name, arity, fn) of the kernels the generator draws from."""
    return [
        ("add", 2, lax.add),
        ("mul", 2, lax.mul),
        ("sub", 2, lax.sub),
        ("max", 2, lax.max),
        ("neg", 1, lax.neg),
        ("tanh", 1, lax.tanh),
        ("select", 3, lambda a, b, c: lax.select(lax.gt(a, b), b, c)),
        ("select_sg", 2, lambda a, b: lax.select(lax.gt(a, b), a, lax.stop_gradient(a))),
        ("stop_gradient", 1, lax.stop_gradient),
        ("transpose2", 1, lambda a: lax.transpose(lax.transpose(a, (1, 0)), (1, 0))),
        ("reshape2", 1, lambda a: a.reshape(128, 64).reshape(SHAPE)),
        ("rowsum", 1, lambda a: a - a.sum(axis=1, keepdims=True) * 0.01),
        ("dot", 2, lambda a, b: (a @ b.T)[:, :1] * 0.01 + b),
        ("cond", 2, _cond),
        ("loop", 1, _loop),
    ]


def _program(seed: int, n_args: int = 3, n_ops: int = 14):
    rng = np.random.default_rng(seed)
    ops = _ops()
    plan = []
    for k in range(n_ops):
        name, arity, fn = ops[rng.integers(len(ops))]
        # Prefer recent values (long chains, so that buffers die and are reused) but reach back.
        srcs = [int(min(n_args + k - 1, rng.geometric(0.35) - 1)) for _ in range(arity)]
        srcs = [n_args + k - 1 - s if rng.random() < 0.7 else int(rng.integers(n_args + k))
                for s in srcs]  # fmt: skip
        plan.append((name, fn, [max(0, s) for s in srcs]))
    outs = sorted({n_args + n_ops - 1, *rng.integers(n_args, n_args + n_ops, 2).tolist()})

    def f(*args):
        vals = list(args)
        for _, fn, srcs in plan:
            vals.append(fn(*(vals[s] for s in srcs)))
        return [vals[i] for i in outs]

    args = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(n_args)]
    return f, args, [p[0] for p in plan]


@pytest.mark.parametrize("seed", range(40))
def test_compiled_program_equals_eager(seed):
    f, args, names = _program(seed)
    before = [a.copy() for a in args]
    with spmd.disable_jit():
        want = [np.asarray(o) for o in f(*args)]
    got = [np.asarray(o) for o in spmd.jit(f)(*args)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w, err_msg=f"ops {names}")
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)  # the caller's buffers are never written


@pytest.mark.parametrize("seed", range(12))
def test_compiled_vmap_and_grad_equal_eager(seed):
    # vmap turns the cond into a select of both branches and the while loop into a batched
    # one; grad adds the backward pass's reuse opportunities.
    f, args, names = _program(1000 + seed, n_ops=10)

    def loss(*a):
        return sum((o * o).sum() for o in f(*a))

    xs = [np.stack([a, a[::-1], -a]) for a in args]
    for g, inputs in ((spmd.vmap(f), xs), (spmd.grad(loss, argnums=(0, 1, 2)), args)):
        with spmd.disable_jit():
            want = [np.asarray(o) for o in g(*inputs)]
        got = [np.asarray(o) for o in spmd.jit(g)(*inputs)]
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b, err_msg=f"ops {names}")
