"""The Array type: printing as JAX prints, NumPy interop, conversions and methods."""

import copy
import pickle

import ml_dtypes
import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.array import Array


def A(x, weak=False):
    return Array(np.asarray(x), weak)


# Reprs recorded from JAX 0.10.2.
REPRS = [
    (A(np.arange(3, dtype=np.int32)), "Array([0, 1, 2], dtype=int32)"),
    (A(np.float32(1), True), "Array(1., dtype=float32, weak_type=True)"),
    (A(np.array([True, False])), "Array([ True, False], dtype=bool)"),
    (A(np.zeros((0, 3), np.float32)), "Array([], shape=(0, 3), dtype=float32)"),
    (A(np.zeros(0, np.float32)), "Array([], shape=(0,), dtype=float32)"),
    (A(np.array([1 + 2j], np.complex64)), "Array([1.+2.j], dtype=complex64)"),
    (
        A(np.ones((2, 3), ml_dtypes.bfloat16)),
        "Array([[1, 1, 1],\n       [1, 1, 1]], dtype=bfloat16)",
    ),
    (
        A(np.arange(12, dtype=np.float32).reshape(3, 4) * np.float32(1e10)),
        "Array([[0.0e+00, 1.0e+10, 2.0e+10, 3.0e+10],\n"
        "       [4.0e+10, 5.0e+10, 6.0e+10, 7.0e+10],\n"
        "       [8.0e+10, 9.0e+10, 1.0e+11, 1.1e+11]], dtype=float32)",
    ),
    (
        A(np.arange(100, dtype=np.int32)),
        "Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n"
        "       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,\n"
        "       34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,\n"
        "       51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67,\n"
        "       68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84,\n"
        "       85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99],      dtype=int32)",
    ),
    (
        A(np.arange(2000, dtype=np.int32)),
        "Array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)",
    ),
]


@pytest.mark.parametrize("x,text", REPRS, ids=range(len(REPRS)))
def test_repr_matches_jax(x, text):
    assert repr(x) == text


def test_repr_of_long_float_array_matches_jax():
    x = A(np.arange(32, dtype=np.float32) * np.float32(1.1))
    assert repr(x).startswith(
        "Array([ 0.       ,  1.1      ,  2.2      ,  3.3000002,  4.4      ,\n"
    )
    assert repr(x).endswith("       33.       , 34.100002 ], dtype=float32)")


def test_str_is_numpy_str():
    assert str(A(np.arange(3, dtype=np.int32))) == "[0 1 2]"
    assert str(A(np.arange(2000, dtype=np.int32))) == "[   0    1    2 ... 1997 1998 1999]"


def test_numpy_interop_both_ways():
    x = A(np.arange(6, dtype=np.float32).reshape(2, 3))
    n = np.asarray(x)
    assert n.dtype == np.float32 and n.shape == (2, 3)
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    # NumPy ufuncs on Arrays give NumPy results; spmd functions take NumPy inputs.
    assert isinstance(np.sin(x), np.ndarray)
    assert isinstance(jnp.sin(n), Array)


def test_scalar_conversions_and_item():
    x = A(np.float32(2.5))
    assert float(x) == 2.5 and int(x) == 2 and complex(x) == 2.5 + 0j and bool(x)
    assert x.item() == 2.5
    assert A(np.arange(4, dtype=np.int32)).tolist() == [0, 1, 2, 3]
    assert [1, 2, 3][A(np.int32(1))] == 2
    with pytest.raises(TypeError, match="integer"):
        [1, 2][A(np.float32(1))]


def test_shape_properties():
    x = A(np.zeros((2, 3, 4), np.float16))
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.size == 24
    assert x.dtype == np.float16 and x.itemsize == 2 and x.nbytes == 48
    assert x.block_until_ready() is x
    assert len(x) == 2
    with pytest.raises(TypeError, match="len"):
        len(A(np.float32(1)))


def test_iteration_yields_rows():
    rows = list(A(np.arange(6, dtype=np.int32).reshape(3, 2)))
    assert len(rows) == 3 and all(isinstance(r, Array) for r in rows)
    assert rows[2].tolist() == [4, 5]


def test_unhashable_but_picklable_and_copyable():
    x = A(np.arange(3, dtype=np.int32), True)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == [0, 1, 2] and y.weak_type
    assert copy.deepcopy(x).tolist() == [0, 1, 2]
    assert copy.copy(x).tolist() == [0, 1, 2]


def test_format():
    assert f"{A(np.float32(1.5)):.2f}" == "1.50"


def test_operators_defer_to_unknown_types():
    class Other:
        def __radd__(self, other):
            return "other"

    assert A(np.float32(1)) + Other() == "other"


def test_every_python_operator():
    x = A(np.array([5, -7, 9], np.int32))
    y = A(np.array([2, 3, -4], np.int32))
    n, m = np.asarray(x), np.asarray(y)
    cases = {
        "+": (x + y, n + m),
        "-": (x - y, n - m),
        "*": (x * y, n * m),
        "//": (x // y, n // m),
        "%": (x % y, n % m),
        "**": (x**2, n**2),
        "&": (x & y, n & m),
        "|": (x | y, n | m),
        "^": (x ^ y, n ^ m),
        "<<": (x << 1, n << 1),
        ">>": (x >> 1, n >> 1),
        "<": (x < y, n < m),
        "<=": (x <= y, n <= m),
        ">": (x > y, n > m),
        ">=": (x >= y, n >= m),
        "==": (x == y, n == m),
        "!=": (x != y, n != m),
        "neg": (-x, -n),
        "pos": (+x, +n),
        "abs": (abs(x), np.abs(n)),
        "~": (~x, ~n),
        "r+": (1 + x, 1 + n),
        "r-": (1 - x, 1 - n),
        "r*": (2 * x, 2 * n),
        "r//": (100 // x, 100 // n),
    }
    for name, (got, want) in cases.items():
        assert isinstance(got, Array), name
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)
    np.testing.assert_allclose(np.asarray(x / y), n / m, rtol=1e-6)
    assert (x / y).dtype == np.float32


def test_operators_work_on_tracers():
    f = spmd.jit(lambda x, y: (x + y, x * 2, 1 - x, x > y, -x))
    outs = f(A(np.float32([1, 2])), A(np.float32([3, 0])))
    assert [o.tolist() for o in outs] == [[4, 2], [2, 4], [0, -1], [False, True], [-1, -2]]


def test_public_array_type_counts_tracers_and_keys_as_instances_as_jax_does():
    import spmd.typing

    seen = {}
    spmd.jit(lambda x: seen.setdefault("jit", isinstance(x, spmd.Array)))(1.0)
    spmd.vmap(lambda x: seen.setdefault("vmap", isinstance(x, spmd.Array)))(jnp.ones(2))
    spmd.grad(lambda x: seen.setdefault("grad", isinstance(x, spmd.Array)) * 0 + x)(1.0)
    assert seen == {"jit": True, "vmap": True, "grad": True}
    assert isinstance(jnp.ones(2), spmd.Array) and not isinstance(np.ones(2), spmd.Array)
    assert isinstance(spmd.random.key(0), spmd.Array)
    # As in JAX: tracer classes are not subclasses, so a tracer is not typing.ArrayLike.
    assert issubclass(type(jnp.ones(2)), spmd.Array) and not issubclass(float, spmd.Array)
    spmd.jit(lambda x: seen.setdefault("like", isinstance(x, spmd.typing.ArrayLike)))(1.0)
    assert seen["like"] is False
    # spmd keeps a constructor from NumPy data (JAX has none).
    a = spmd.Array(np.arange(3, dtype=np.int32))
    assert isinstance(a, spmd.Array) and a.tolist() == [0, 1, 2]
    assert repr(spmd.Array) == "<class 'spmd.Array'>"


@pytest.mark.parametrize("jit", [False, True])
def test_item_assignment_is_a_type_error_pointing_to_at(jit):
    # jax: TypeError, eagerly and traced (the Sharp Bits page's in-place update).
    def f(x):
        x[1, :] = 1.0
        return x

    with pytest.raises(TypeError, match=r"does not support item assignment.*x\.at\[idx\]\.set"):
        (spmd.jit(f) if jit else f)(jnp.zeros((3, 3)))


def test_deleted_array_keeps_its_type_and_refuses_its_values():
    # JAX 0.10.2: shape, dtype and sharding stay; every use of the values is a RuntimeError
    # naming the type (block_until_ready: JAX's runtime error).
    from spmd.errors import JaxRuntimeError

    w = jnp.arange(8.0)
    s = w.sharding
    w.delete()
    w.delete()  # again: nothing happens
    assert w.is_deleted() and (w.shape, w.dtype, w.ndim, w.size) == ((8,), np.float32, 1, 8)
    assert w.sharding == s
    uses = {
        "add": lambda: w + 1,
        "radd": lambda: 1 + w,
        "repr": lambda: repr(w),
        "str": lambda: str(w),
        "asarray": lambda: np.asarray(w),
        "index": lambda: w[0],
        "item": lambda: w.item(),
        "sum": lambda: jnp.sum(w),
        "jit": lambda: spmd.jit(lambda a: a * 2)(w),
        "vmap": lambda: spmd.vmap(lambda a: a)(w),
        "grad": lambda: spmd.grad(lambda a: a.sum())(w),
        "device_put": lambda: spmd.device_put(w, spmd.devices()[1]),
    }
    for use in uses.values():
        with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[8\]\."):
            use()
    with pytest.raises(JaxRuntimeError, match="deleted or donated buffer"):
        w.block_until_ready()
    assert not jnp.arange(3.0).is_deleted()


def _sharded(spec):
    mesh = spmd.make_mesh((4, 2), ("a", "b"))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    return spmd.device_put(x, spmd.sharding.NamedSharding(mesh, spec))


def test_on_device_size_counts_every_devices_shard():
    # JAX 0.10.2's numbers: 8 devices x (2x2, 2x4, 8x4) float32 shards; a scalar is 4 bytes.
    P = spmd.sharding.PartitionSpec
    assert _sharded(P("a", "b")).on_device_size_in_bytes() == 128
    assert _sharded(P("a")).on_device_size_in_bytes() == 256
    assert _sharded(P()).on_device_size_in_bytes() == 1024
    assert jnp.arange(3).on_device_size_in_bytes() == 12
    assert jnp.float32(2).on_device_size_in_bytes() == 4


def test_dlpack_and_buffer_pointer_of_one_device_arrays():
    a = jnp.arange(4.0)
    b = np.from_dlpack(a)
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0] and b.dtype == np.float32
    assert a.__dlpack_device__() == (1, 0)  # (kDLCPU, 0), as JAX's CPU arrays
    assert a.unsafe_buffer_pointer() == b.__array_interface__["data"][0]  # shared, not copied
    assert spmd.dlpack.from_dlpack(a).tolist() == b.tolist()


def test_dlpack_and_buffer_pointer_refuse_sharded_arrays():
    x = _sharded(spmd.sharding.PartitionSpec("a"))
    with pytest.raises(BufferError, match="singular device.*over 8 devices"):
        np.from_dlpack(x)
    with pytest.raises(BufferError, match="unsharded"):
        x.__dlpack_device__()
    with pytest.raises(spmd.errors.JaxRuntimeError, match="UnsafeBufferPointer.*8 devices"):
        x.unsafe_buffer_pointer()
