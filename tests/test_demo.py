"""``python -m spmd.demo`` (what ``make demo`` runs) finishes cleanly and prints what JAX would.

The expected text was printed by JAX 0.10.2 running the same tour (spmd swapped for jax).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from spmd import demo

EXPECTED_JAXPR = textwrap.dedent(
    """\
    { lambda ; a:f32[3] b:f32[]. let
        c:f32[3] = sin a
        d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
        e:f32[3] = mul c d
        f:f32[3] = add e 1.0:f32[]
      in (f,) }"""
)

# vmap(dot) of two batches of vectors: one dot_general with a batch dimension.
EXPECTED_VMAP_JAXPR = textwrap.dedent(
    """\
    { lambda ; a:f32[4,3] b:f32[4,3]. let
        c:f32[4] = dot_general[
          dimension_numbers=(([1], [1]), ([0], [0]))
          preferred_element_type=float32
        ] a b
      in (c,) }"""
)

EXPECTED_LINES = [
    # arrays
    ">>> x = jnp.arange(3)",
    "Array([0, 1, 2], dtype=int32)",
    "Array([1, 3, 5], dtype=int32)",
    "Array([[1., 1., 1.],\n       [1., 1., 1.]], dtype=float32)",
    "Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)",
    "(dtype('int32'), (3,))",
    # type promotion
    ">>> h + 1.0\nArray([2., 2., 2.], dtype=float16)",
    ">>> h + jnp.float32(1.0)\nArray([2., 2., 2.], dtype=float32)",
    "Array([2, 2], dtype=int16)",
    "Array([2.5, 2.5], dtype=float32, weak_type=True)",
    ">>> jnp.add(1.0, 2)\nArray(3., dtype=float32, weak_type=True)",
    # jit
    "first call of fast_step:",
    "later calls (cached):",
    ">>> fast_step(x)\nArray([1., 1., 1., 3.], dtype=float32)",
    # pytrees
    "PyTreeDef({'b': *, 'w': *})",
    "{'b': (2,), 'w': (2, 2)}",
    "{'b': Array([0., 0.], dtype=float32), 'w': Array([[0.9, 0.9],\n       [0.9, 0.9]], "
    "dtype=float32)}",
    # dot products
    ">>> jnp.dot(a, b)\nArray(17., dtype=float32)",
    ">>> a @ b\nArray(17., dtype=float32)",
    "Array([17., 62.], dtype=float32)",
    # vmap and grad
    ">>> jax.grad(loss)(w, xs[0], ys[0])\nArray([1., 2., 3.], dtype=float32)",
    ">>> per_example(w, xs, ys)\nArray([[ 1.,  2.,  3.],\n       [ 8., 10., 12.]], dtype=float32)",
    "Array([[4., 1.],\n       [2., 5.]], dtype=float32)",
    # automatic parallelism: JAX's result sharding, and the inserted psum with its reason
    ">>> layer(x, w).sharding.spec\nP('x',)",
    "# psum over ('y',): eqn 1/0/0 (max) operand 0: max is elementwise",
    "d:f32[4,4] = psum[axes=('y',) axis_index_groups=None] c",
    "'bytes moved psum': 96.0",
]


@pytest.fixture(scope="module")
def demo_run() -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "spmd.demo"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )
    return proc


def test_demo_exits_cleanly(demo_run):
    assert demo_run.returncode == 0, demo_run.stderr
    assert "Traceback" not in demo_run.stderr


def test_demo_prints_the_jaxpr(demo_run):
    assert EXPECTED_JAXPR in demo_run.stdout


def test_demo_prints_the_vmap_jaxpr(demo_run):
    assert EXPECTED_VMAP_JAXPR in demo_run.stdout


@pytest.mark.parametrize("text", EXPECTED_LINES)
def test_demo_output(demo_run, text):
    assert text in demo_run.stdout


def test_demo_has_every_section_heading(demo_run):
    for section in demo.SECTIONS:
        assert section.__doc__.splitlines()[0] in demo_run.stdout


def test_session_echoes_statements_and_reprs(capsys):
    ns: dict = {}
    demo.session(
        """
        # a comment
        x = [1, 2]
        def f(y):
            return y * 2
        f(x)
        None
        """,
        ns,
    )
    out = capsys.readouterr().out
    assert out == (
        "# a comment\n"
        ">>> x = [1, 2]\n"
        ">>> def f(y):\n"
        "...     return y * 2\n"
        ">>> f(x)\n"
        "[1, 2, 1, 2]\n"
        ">>> None\n"
    )
    assert ns["x"] == [1, 2]


def test_sections_use_separate_namespaces():
    ns1, ns2 = demo._namespace(), demo._namespace()
    demo.session("z = 1", ns1)
    assert "z" not in ns2


def test_demo_shows_a_sharded_array_and_its_picture(demo_run):
    # The picture JAX 0.10 draws for a (4, 8) array sharded P('x', 'y') on a (2, 4) mesh.
    picture = (
        "│  CPU 0   │  CPU 1   │  CPU 2   │  CPU 3   │\n"
        "│          │          │          │          │\n"
        "│          │          │          │          │\n"
        "├──────────┼──────────┼──────────┼──────────┤\n"
    )
    assert picture in demo_run.stdout
    assert "│CPU 0,4│CPU 1,5│CPU 2,6│CPU 3,7│" in demo_run.stdout
    assert "Array(496, dtype=int32)" in demo_run.stdout
