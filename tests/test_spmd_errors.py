"""Bad input to the SPMD layer (issue 5): one test per case, each checking the error class, that
the message names the axis, the groups or the sizes, and -- under pmap and shard_map, which
trace their body before running it -- that no device work ran before the error.

Error classes were checked against JAX 0.10.2 on 8 CPU devices. Where JAX's error is empty,
internal or accidental we still raise the builtin class its users would catch:

- unbound axis name inside shard_map: JAX raises an empty AssertionError; we raise NameError,
  as JAX does for the same mistake under pmap and vmap;
- axis_index_groups missing an index under pmap: JAX fails in XLA's verifier (JaxRuntimeError);
  we raise ValueError, as JAX does for repeated or out-of-range indices;
- unequal groups for all_gather / all_to_all: JAX raises ValueError from lowering or with a
  misleading size; ours names the groups and their sizes;
- non-divisible psum_scatter under vmap: JAX raises AssertionError (tiled) or returns a wrong
  shape (untiled); we raise ValueError as under pmap and shard_map;
- ppermute pair out of range: JAX raises IndexError('list index out of range') under pmap and
  AssertionError under vmap; we raise ValueError, as JAX does for repeated pairs;
- pmap over more devices than exist, pmap argument sizes that differ: ValueError (JAX 0.10's
  IndivisibleError is a ValueError).

shard_map specs that do not match the argument's rank or do not divide it are tested in
tests/test_shard_map.py: test_in_spec_longer_than_rank, test_out_spec_longer_than_rank,
test_in_spec_does_not_divide.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd.sharding import PartitionSpec as P

X4 = np.zeros((4, 4), np.float32)
X43 = np.zeros((4, 3), np.float32)
MAPS = ("pmap", "vmap", "shard_map")


def run(kind: str, fn, x: np.ndarray):
    """``fn`` (per device) over the leading dimension of ``x`` (one entry per device) under
    ``kind``, with a probe that records device work done before ``fn``'s collective."""
    n = x.shape[0]
    work: list = []

    def probed(y):
        spmd.debug.callback(lambda v: work.append(1), y)
        return fn(y)

    try:
        if kind == "vmap":
            return np.asarray(spmd.vmap(probed, axis_name="i")(x))
        if kind == "pmap":
            return np.asarray(spmd.pmap(probed, axis_name="i")(x))
        mesh = spmd.make_mesh((n,), ("i",), devices=spmd.devices()[:n])
        f = spmd.shard_map(
            lambda b: jnp.expand_dims(probed(b[0]), 0), mesh=mesh, in_specs=P("i"), out_specs=P("i")
        )
        return np.asarray(f(x))
    except Exception:
        # vmap runs eagerly, one primitive at a time (as JAX's does); pmap and shard_map trace
        # first, so their errors must come before any device ran.
        assert kind == "vmap" or not work, f"{kind}: the error came after device work started"
        raise


def _fail_at_run_time(v):
    raise RuntimeError("late")


def test_probe_sees_device_work():
    # The probe used by the tests below does see work when the body runs before the error.
    for kind in ("pmap", "shard_map"):
        with pytest.raises(AssertionError, match="after device work"):
            run(kind, lambda y: (spmd.debug.callback(_fail_at_run_time, y), y)[1], X4)


# ---------------------------------------------------------------------------------------------
# Unbound axis names


def test_unbound_axis_name_under_pmap():
    want = (
        r"^unbound axis name: j\. psum over axis 'j' must run "
        r"inside a map.*bound axes: 'i' \(size 4\)"
    )
    with pytest.raises(NameError, match=want):
        run("pmap", lambda y: lax.psum(y, "j"), X4)


def test_unbound_axis_name_under_vmap():
    want = (
        r"^unbound axis name: j\. all_gather over axis 'j'.*"
        r"bound axes: 'i' \(size 4\)"
    )
    with pytest.raises(NameError, match=want):
        run("vmap", lambda y: lax.all_gather(y, "j"), X4)


def test_unbound_axis_name_inside_shard_map():
    # JAX raises an empty AssertionError here.
    want = (
        r"^unbound axis name: z\. axis_index over axis 'z'.*"
        r"bound axes: 'i' \(size 4\)"
    )
    with pytest.raises(NameError, match=want):
        run("shard_map", lambda y: y + lax.axis_index("z"), X4)


def test_unbound_axis_name_outside_any_map():
    want = (
        r"^unbound axis name: i\. psum over axis 'i'.*no axis is "
        r"bound here"
    )
    with pytest.raises(NameError, match=want):
        lax.psum(1.0, "i")


# ---------------------------------------------------------------------------------------------
# axis_index_groups (checked under every map: spmd supports groups in all three)


def test_axis_index_groups_miss_an_index():
    for kind in MAPS:
        want = (
            r"psum: axis_index_groups \[\[0, 1\], \[2\]\] over "
            r"axis 'i' \(size 4\) miss indices \[3\]"
        )
        with pytest.raises(ValueError, match=want):
            run(kind, lambda y: lax.psum(y, "i", axis_index_groups=[[0, 1], [2]]), X4)


def test_axis_index_groups_repeat_an_index():
    for kind in MAPS:
        want = (
            r"pmax: axis_index_groups \[\[0, 1\], \[2, 2, 3\]\] "
            r"over axis 'i' \(size 4\) repeat indices \[2\]"
        )
        with pytest.raises(ValueError, match=want):
            run(kind, lambda y: lax.pmax(y, "i", axis_index_groups=[[0, 1], [2, 2, 3]]), X4)


def test_axis_index_groups_out_of_range():
    for kind in MAPS:
        want = (
            r"all_gather: axis_index_groups \[\[0, 1\], \[2, 5\]\]"
            r" over axis 'i' \(size 4\) name indices \[5\], "
            r"outside range\(4\)"
        )
        with pytest.raises(ValueError, match=want):
            run(kind, lambda y: lax.all_gather(y, "i", axis_index_groups=[[0, 1], [2, 5]]), X4)


def test_axis_index_groups_unequal_for_all_gather():
    want = (
        r"all_gather: axis_index_groups \[\[0, 1, 2\], \[3\]\] "
        r"over axis 'i': all_gather needs groups of equal size, "
        r"got sizes \[3, 1\]"
    )
    with pytest.raises(ValueError, match=want):
        run("pmap", lambda y: lax.all_gather(y, "i", axis_index_groups=[[0, 1, 2], [3]]), X4)


def test_axis_index_groups_unequal_for_psum_scatter():
    want = (
        r"psum_scatter: axis_index_groups \[\[0, 1, 2\], \[3\]\]"
        r" over axis 'i': psum_scatter needs groups of equal "
        r"size, got sizes \[3, 1\]"
    )
    with pytest.raises(ValueError, match=want):
        groups = [[0, 1, 2], [3]]
        run("shard_map", lambda y: lax.psum_scatter(y, "i", axis_index_groups=groups), X4)


def test_axis_index_groups_unequal_for_all_to_all():
    want = (
        r"all_to_all: axis_index_groups \[\[0\], \[1, 2, 3\]\] "
        r"over axis 'i': all_to_all needs groups of equal size, "
        r"got sizes \[1, 3\]"
    )
    with pytest.raises(ValueError, match=want):
        run("vmap", lambda y: lax.all_to_all(y, "i", 0, 0, axis_index_groups=[[0], [1, 2, 3]]), X4)


def test_axis_index_groups_unequal_allowed_for_psum():
    # JAX allows unequal groups for psum (checked under pmap): each device gets its group's sum.
    x = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    for kind in MAPS:
        got = run(kind, lambda y: lax.psum(y, "i", axis_index_groups=[[0, 1, 2], [3]]), x)
        assert got.tolist() == [7.0, 7.0, 7.0, 8.0], kind


# ---------------------------------------------------------------------------------------------
# Non-divisible psum_scatter and all_to_all under each map

_RS = r"psum_scatter: tiled reduce_scatter operand scatter dimension size 3 must be divisible "
_RS += r"by shard_count 4 \(the number of devices of axis 'i'\); operand shape \(3,\)"
_A2A = r"all_to_all: the size of split_axis 0 \(3\) has to be divisible by the number of "
_A2A += r"devices of axis 'i' \(4\); operand shape \(3,\)"


def _rs(y):
    return lax.psum_scatter(y, "i", tiled=True)


def _a2a(y):
    return lax.all_to_all(y, "i", 0, 0, tiled=True)


def test_psum_scatter_not_divisible_under_pmap():
    with pytest.raises(ValueError, match=_RS):
        run("pmap", _rs, X43)


def test_psum_scatter_not_divisible_under_vmap():
    # JAX raises an AssertionError('(3, 4)') here.
    with pytest.raises(ValueError, match=_RS):
        run("vmap", _rs, X43)


def test_psum_scatter_not_divisible_inside_shard_map():
    with pytest.raises(ValueError, match=_RS):
        run("shard_map", _rs, X43)


def test_all_to_all_not_divisible_under_pmap():
    with pytest.raises(ValueError, match=_A2A):
        run("pmap", _a2a, X43)


def test_all_to_all_not_divisible_under_vmap():
    with pytest.raises(ValueError, match=_A2A):
        run("vmap", _a2a, X43)


def test_all_to_all_not_divisible_inside_shard_map():
    with pytest.raises(ValueError, match=_A2A):
        run("shard_map", _a2a, X43)


@pytest.mark.parametrize("kind", MAPS)
def test_psum_scatter_untiled_size_mismatch(kind):
    # JAX under vmap returns a wrongly shaped result instead of raising.
    want = (
        r"scatter dimension size 3 must match shard count 4 "
        r"\(the number of devices of axis 'i'\)"
    )
    with pytest.raises(ValueError, match=want):
        run(kind, lambda y: lax.psum_scatter(y, "i"), X43)


@pytest.mark.parametrize("kind", MAPS)
def test_all_to_all_untiled_size_mismatch(kind):
    want = (
        r"size of the mapped axis 'i' to equal "
        r"x.shape\[split_axis\], but they are 4 and 3"
    )
    with pytest.raises(ValueError, match=want):
        run(kind, lambda y: lax.all_to_all(y, "i", 0, 0), X43)


# ---------------------------------------------------------------------------------------------
# ppermute, pshuffle


def test_ppermute_pair_out_of_range():
    want = (
        r"ppermute: perm pairs \[\(0, 5\)\] name devices outside "
        r"range\(4\) of axis 'i' \(size 4\)"
    )
    with pytest.raises(ValueError, match=want):
        run("pmap", lambda y: lax.ppermute(y, "i", [(1, 2), (0, 5)]), X4)


def test_ppermute_negative_index():
    # JAX under pmap lets Python's negative indexing pick a device (-1 -> 3) as a source but
    # drops it as a destination; we refuse both.
    want = (
        r"perm pairs \[\(-1, 1\)\] name devices outside "
        r"range\(4\)"
    )
    with pytest.raises(ValueError, match=want):
        run("pmap", lambda y: lax.ppermute(y, "i", [(-1, 1)]), X4)


def test_ppermute_source_repeated():
    want = (
        r"ppermute sources and destinations must be unique, got "
        r"\(\(0, 1\), \(0, 2\)\) over axis 'i' \(size 4\): repeated sources \[0\]\."
    )
    with pytest.raises(ValueError, match=want):
        run("shard_map", lambda y: lax.ppermute(y, "i", [(0, 1), (0, 2)]), X4)


def test_ppermute_destination_repeated():
    want = (
        r"ppermute sources and destinations must be unique, got "
        r"\(\(0, 1\), \(2, 1\)\) over axis 'i' \(size 4\): repeated "
        r"destinations \[1\]\."
    )
    with pytest.raises(ValueError, match=want):
        run("vmap", lambda y: lax.ppermute(y, "i", [(0, 1), (2, 1)]), X4)


def test_pshuffle_non_permutation():
    want = (
        r"`perm` does not represent a permutation: \[0, 1, 1, 3\] "
        r"\(pshuffle over axis 'i' of size 4"
    )
    with pytest.raises(ValueError, match=want):
        run("pmap", lambda y: lax.pshuffle(y, "i", [0, 1, 1, 3]), X4)


def test_pshuffle_longer_than_the_axis():
    want = (
        r"perm \[0, 1, 2, 3, 4\] has 5 entries, but axis 'i' has "
        r"only 4 devices"
    )
    with pytest.raises(ValueError, match=want):
        run("pmap", lambda y: lax.pshuffle(y, "i", [0, 1, 2, 3, 4]), X4)


# ---------------------------------------------------------------------------------------------
# pmap


def test_pmap_over_more_devices_than_exist():
    # Sixteen million rows, never materialized: the error comes before any work on the data.
    v = np.broadcast_to(np.float32(1), (16_000_000, 2))
    start = time.perf_counter()
    want = (
        r"(?s)^compiling computation that requires 16000000 "
        r"logical devices, but only 8 XLA devices are available.*"
        r"a\.reshape\(8, -1, 2\) gives shape \(8, 2000000, 2\)"
    )
    with pytest.raises(ValueError, match=want):
        spmd.pmap(lambda a: a * 2)(v)
    assert time.perf_counter() - start < 0.5


def test_pmap_over_more_devices_than_exist_via_axis_size():
    want = (
        r"(?s)requires 16 logical devices.*pmap\(axis_size=16\) needs "
        r"16 devices; there are 8"
    )
    with pytest.raises(ValueError, match=want):
        spmd.pmap(lambda a: a, in_axes=None, axis_size=16)(np.zeros(3))


def test_pmap_argument_sizes_differ():
    with pytest.raises(ValueError) as e:
        spmd.pmap(lambda a, b: a + b)(jnp.ones((3, 2)), jnp.ones((4, 2)))
    assert str(e.value) == (
        "pmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 3: axis 0 of argument a of type float32[3,2];\n"
        "  * one axis had size 4: axis 0 of argument b of type float32[4,2]"
    )


def test_pmap_argument_sizes_differ_keyword():
    with pytest.raises(ValueError) as e:
        spmd.pmap(lambda a, b: a + b["u"])(jnp.ones((3, 2)), b={"u": jnp.ones((4, 2))})
    assert str(e.value) == (
        "pmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 3: axis 0 of argument a of type float32[3,2];\n"
        "  * one axis had size 4: axis 0 of argument b['u'] of type float32[4,2]"
    )
