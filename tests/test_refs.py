"""Mutable array references (``new_ref``, ``Ref``, ``freeze``, ``empty_ref``, ``free_ref``,
``spmd.ref``) against JAX 0.10.2 (``tests/golden/refs.json``, written by
``tests/golden_gen/refs_gen.py``; no JAX here): eager reads and in-place writes, jit updating
Ref arguments, make_jaxpr texts (exactly), grad and vmap through refs, and the class of each
error; then what the error messages say.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
import pytest
from golden_compare import DEFAULT_TOL, load_golden_family

import spmd
import spmd.numpy as jnp
import spmd.ref
from spmd._src import refs

GEN, _ = load_golden_family("refs", "probes")
GOLDEN = json.loads((Path(__file__).parent / "golden" / "refs.json").read_text())["probes"]


class _Jax:
    """``spmd`` with the ref names JAX has at top level (spmd/__init__.py does not export them
    yet)."""

    Ref = refs.Ref
    new_ref = staticmethod(refs.new_ref)
    empty_ref = staticmethod(refs.empty_ref)
    freeze = staticmethod(refs.freeze)
    free_ref = staticmethod(refs.free_ref)

    def __getattr__(self, name):
        return getattr(spmd, name)


NS = types.SimpleNamespace(jax=_Jax(), jnp=jnp, np=np, ref=spmd.ref)
_GROUPS = {
    "eager": GEN._eager,
    "jit": GEN._jit,
    "jaxpr": GEN._jaxprs,
    "ad": GEN._transforms,
    "loops": GEN._loops,
    "outer_ref_ad": GEN._outer_ref_derivatives,
    "indexing": GEN._indexing,
    "vmap_axes": GEN._vmap_axes,
}
_RUNS: dict = {}


def _run(group: str) -> dict:
    # Each group runs once (its cases share refs and set-up); the tests compare its entries.
    if group not in _RUNS:
        _RUNS[group] = {k: GEN.show(NS, v) for k, v in _GROUPS[group](NS).items()}
    return _RUNS[group]


def _same(got, want, where: str) -> None:
    if isinstance(want, dict) and "values" in want:
        assert isinstance(got, dict) and "values" in got, f"{where}: {got!r} is not an array"
        for k in ("dtype", "shape", "weak_type"):
            assert got[k] == want[k], f"{where}: {k} {got[k]} != {want[k]}"
        tol = DEFAULT_TOL.get(want["dtype"], 0)
        np.testing.assert_allclose(got["values"], want["values"], rtol=tol, atol=tol, err_msg=where)
    elif isinstance(want, dict) and "float" in want:
        tol = DEFAULT_TOL["float32"]  # (values of float32 arrays, as Python floats)
        assert isinstance(got, dict) and "float" in got, f"{where}: {got!r}"
        np.testing.assert_allclose(got["float"], want["float"], rtol=tol, atol=tol, err_msg=where)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


_CASES = [(g, name) for g in _GROUPS for name in sorted(GOLDEN[g])]


@pytest.mark.parametrize("group,name", _CASES, ids=[f"{g}-{n}" for g, n in _CASES])
def test_matches_jax(group, name):
    _same(_run(group)[name], GOLDEN[group][name], f"{group}.{name}")


def test_every_probe_has_a_golden():
    assert set(_run("eager")) == set(GOLDEN["eager"])
    assert set(GEN._errors(NS)) == set(GOLDEN["errors"])


@pytest.mark.parametrize("name", sorted(GOLDEN["errors"]))
def test_error_class_matches_jax(name):
    case = GEN._errors(NS)[name]
    want = GOLDEN["errors"][name]
    try:
        case()
        got = "no error"
    except Exception as err:  # noqa: BLE001 - the class is what is compared
        got = type(err).__name__
    assert got == want


# ---------------------------------------------------------------------------------------------
# What the messages say: the function, the argument, the sizes


def _ref3():
    return refs.new_ref(jnp.arange(3.0))


def test_message_returned_ref_names_function_and_argument():
    def keep(r):
        return r

    with pytest.raises(ValueError, match=r"jit\(keep\).*Ref\{float32\[3\]\}.*argument r"):
        spmd.jit(keep)(_ref3())
    with pytest.raises(ValueError, match=r"make_jaxpr\(<lambda>\).*created inside"):
        spmd.make_jaxpr(lambda x: refs.new_ref(x))(1.0)


def test_message_same_ref_twice_names_both_arguments():
    r = _ref3()
    with pytest.raises(ValueError, match=r"jit\(<lambda>\).*Ref\{float32\[3\]\}.* a and b"):
        spmd.jit(lambda a, b: a[...] + b[...])(r, r)
    with pytest.raises(ValueError, match=r"t\[0\] and t\[1\]"):
        spmd.jit(lambda t: t[0][...])((r, r))
    # Two different refs of one type are fine, and a later call of the same program still
    # checks (the first call's program is cached).
    f = spmd.jit(lambda a, b: a[...] + b[...])
    np.testing.assert_array_equal(f(r, _ref3()), [0.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="passed as both"):
        f(r, r)


def test_ref_closed_over_and_passed_is_refused():
    # JAX 0.10.2's ValueError: the program would see two refs where there is one buffer.
    r = _ref3()

    def bump(a):
        a[...] += 1.0
        r[...] += 1.0

    with pytest.raises(ValueError, match=r"when tracing bump for jit, a mutable array "
                                         r"reference of type Ref\{float32\[3\]\} was both "
                                         r"closed over and passed as the argument a"):  # fmt: skip
        spmd.jit(bump)(r)
    with pytest.raises(ValueError, match=r"passed as the argument t\[1\]\['k'\]"):
        spmd.jit(lambda t: r[...] + 1)((0.0, {"k": r}))
    # Another ref passed in is fine; the cached program still checks a later call (where
    # JAX's fails at run time).
    other = _ref3()
    f = spmd.jit(bump)
    f(other)
    np.testing.assert_array_equal(other[...], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(r[...], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="both closed over and passed"):
        f(r)
    np.testing.assert_array_equal(r[...], [1.0, 2.0, 3.0])  # (refused before running)


def test_freeze_of_a_ref_made_outside_is_refused_under_jit():
    # "You can only freeze a ref in the scope where it was created" (JAX 0.10.2 refuses these
    # with internal errors under jit).
    r = _ref3()
    pattern = r"jit\(<lambda>\): freeze of a mutable array reference of type Ref\{float32\[3\]\}"
    with pytest.raises(ValueError, match=pattern + r" that was created outside"):
        spmd.jit(lambda: refs.freeze(r))()
    with pytest.raises(ValueError, match=pattern):
        spmd.jit(lambda a: refs.freeze(a))(r)

    def in_body():
        inner = refs.new_ref(0.0)
        return spmd.lax.scan(lambda c, _: (c, refs.freeze(inner)), 0.0, None, length=2)

    with pytest.raises(ValueError, match=r"jit\(in_body\): freeze .*Ref\{float32\[\]\}"):
        spmd.jit(in_body)()
    # Frozen in the scope that made it is fine, and so is freezing eagerly, under grad, and in
    # make_jaxpr (as in JAX 0.10.2).
    np.testing.assert_array_equal(
        spmd.jit(lambda: refs.freeze(refs.new_ref(jnp.ones(2))))(), [1, 1]
    )
    np.testing.assert_array_equal(refs.freeze(r), [0.0, 1.0, 2.0])
    assert float(spmd.grad(lambda x: refs.freeze(r).sum() * x)(1.0)) == 3.0
    assert "freeze a" in str(spmd.make_jaxpr(lambda: refs.freeze(r))())


def test_message_write_names_shapes_and_dtypes():
    r = _ref3()
    with pytest.raises(ValueError, match=r"swap: the value has shape \(4,\).*shape \(3,\)"):
        r[...] = jnp.ones(4)
    with pytest.raises(ValueError, match=r"swap: the value has dtype int32.*holds float32"):
        r[...] = jnp.ones(3, jnp.int32)
    with pytest.raises(ValueError, match=r"addupdate: the value has shape \(\)"):
        spmd.ref.addupdate(r, ..., 1.0)
    with pytest.raises(
        ValueError, match=r"get: index 5 is out of bounds for a dimension of size 3"
    ):
        r[5]
    with pytest.raises(ValueError, match=r"get: 2 indices for a Ref of rank 1"):
        r[0, 0]
    np.testing.assert_array_equal(r[...], [0.0, 1.0, 2.0])  # nothing was written


def test_message_vmap_and_grad():
    r = _ref3()
    with pytest.raises(Exception, match=r"swap under vmap: .*unbatched Ref\{float32\[3\]\}"):
        spmd.vmap(GEN.write_b, in_axes=(0, None))(jnp.ones((2, 3)), r)
    with pytest.raises(ValueError, match=r"grad cannot differentiate .*Ref\{float32\[3\]\}"):
        spmd.grad(lambda q: q[...].sum())(r)


def test_message_while_condition_reading_an_outer_ref():
    # Where spmd goes its own way: JAX refuses a while_loop whose condition and body both see
    # one Ref (ValueError, even eagerly); spmd runs it, and under differentiation (where the
    # loop cannot be rewritten to carry the ref's value) refuses rather than give a zero
    # derivative.
    def f(x):
        r = refs.new_ref(x)

        def body(i):
            r[...] = r[...] * 2.0
            return i + 1

        spmd.lax.while_loop(lambda i: r[0] < 10.0, body, 0)
        return refs.freeze(r)

    np.testing.assert_array_equal(f(jnp.ones(2)), [16.0, 16.0])
    with pytest.raises(NotImplementedError, match=r"get: cannot differentiate a Ref made outside"):
        spmd.jvp(f, (jnp.ones(2),), (jnp.ones(2),))


def test_message_differentiated_write_into_outside_ref():
    r = _ref3()
    with pytest.raises(Exception, match=r"swap under differentiation: .*Ref\{float32\[3\]\}"):
        spmd.grad(GEN.write_twice_into(r))(jnp.ones(3))
    np.testing.assert_array_equal(r[...], [2.0, 2.0, 2.0])  # the primal write happened, as JAX's


def test_arrays_stay_immutable_under_tracing():
    def f(x):
        x[0] = 1.0
        return x

    with pytest.raises(TypeError, match="does not support item assignment"):
        spmd.jit(f)(jnp.ones(3))


def test_jit_cache_tells_refs_from_arrays():
    # One jitted function called with an array and with a ref of the same shape: two programs.
    f = spmd.jit(lambda x: x[...] * 2)
    np.testing.assert_array_equal(f(jnp.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(f(refs.new_ref(jnp.full(2, 3.0))), [6.0, 6.0])


def test_unsafe_buffer_pointer_stays_through_writes():
    # JAX's refs keep their buffer across eager writes and a jit's writes (docs/201/jit.md).
    r = refs.new_ref(jnp.arange(3.0))
    p = r.unsafe_buffer_pointer()
    assert isinstance(p, int) and p != 0
    r[1] = 5.0
    spmd.jit(lambda r: r.__setitem__(..., jnp.sin(r[...])))(r)
    assert r.unsafe_buffer_pointer() == p
    np.testing.assert_allclose(r[...], np.sin([0.0, 5.0, 2.0]), rtol=1e-6)
    assert refs.new_ref(jnp.arange(3.0)).unsafe_buffer_pointer() != p  # a buffer of its own


def test_docstring_examples():
    import doctest

    from spmd._src.lax import refs as lax_refs

    for mod in (lax_refs, refs, spmd.ref):
        result = doctest.testmod(mod, verbose=False)
        assert result.attempted > 0 and result.failed == 0
