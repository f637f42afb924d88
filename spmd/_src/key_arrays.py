"""Typed key arrays in functions that only move elements (``jnp.stack``, ``jnp.where``, ...).

In JAX a typed key array is an array of an extended dtype, ``key<fry>``, so every function that
only moves, copies or selects elements takes it. spmd's key array (``spmd._src.random``'s
``PRNGKeyArray``) wraps its ``uint32[*shape, 2]`` key data instead. A function decorated with
:func:`over_key_data` runs, when given key arrays, on their data vmapped over the trailing
key-data axis: the function then sees arrays of the keys' own shape, so its shape logic (axes,
indices, masks, broadcasting) applies to keys unchanged, and what it returns is wrapped as keys
again.

The key class registers itself here (:func:`register_key_type`), so array modules can take keys
without importing ``spmd.random``, which imports them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_KEY_TYPES: list[type] = []
# Set once the first key array is made (``key_made``): until then no argument can be one.
_made = [False]
# Per key type: the shape and dtype of one key's data.
_KEY_DATA: dict[type, tuple[tuple[int, ...], Any]] = {}


def register_key_type(cls: type, data_shape: tuple[int, ...], data_dtype: Any) -> None:
    """Make ``cls`` a key array type: ``cls(data)`` wraps key data of shape
    ``(*key_shape, *data_shape)``, ``k._base`` is that data, and ``k.shape``/``k.dtype`` are
    the keys' own."""
    _KEY_TYPES.append(cls)
    _KEY_DATA[cls] = (tuple(data_shape), data_dtype)


def key_made() -> None:
    """Called by a key array type's constructor (see ``_made``)."""
    _made[0] = True


def abstract_keys_in(tree: Any, struct: type) -> Any:
    """``tree`` with each ``struct`` (ShapeDtypeStruct) of a key dtype replaced by a key array
    over a ``struct`` of its data, so that tracing sees the data's shape."""
    from spmd._src import dtypes
    from spmd._src import tree_util as tu

    if not _KEY_TYPES:
        return tree

    def one(x):
        if isinstance(x, struct) and dtypes.is_extended(x.dtype):
            # The key type of that dtype (each implementation has its own).
            cls = next((c for c in _KEY_TYPES if c._impl == getattr(x.dtype, "impl", None)), None)
            cls = cls or _KEY_TYPES[0]
            shape, dtype = _KEY_DATA[cls]
            return cls(struct((*x.shape, *shape), dtype, sharding=x.sharding))
        return x

    return tu.tree_map(one, tree)


def abstract_keys_out(tree: Any, struct: type) -> Any:
    """``tree`` with each key array over a ``struct`` of its data replaced by a ``struct`` of the
    keys' own shape and dtype (what ``eval_shape`` reports for keys, as in JAX)."""
    from spmd._src import tree_util as tu

    if not _KEY_TYPES:
        return tree

    def one(x):
        if is_key_array(x) and isinstance(x._base, struct):
            return struct(x.shape, x.dtype)
        return x

    return tu.tree_map(one, tree, is_leaf=is_key_array)


def is_key_array(x: Any) -> bool:
    return type(x) in _KEY_TYPES


def is_key_type(t: type) -> bool:
    return t in _KEY_TYPES


def _has_key(values) -> bool:
    for v in values:
        t = type(v)
        if t in _KEY_TYPES:
            return True
        if t is list or t is tuple:
            for e in v:
                if type(e) in _KEY_TYPES:
                    return True
    return False


def joined(args, kwargs) -> list:
    """Operands of a join (stack, concatenate): the arrays in the first argument."""
    seq = args[0] if args else next(iter(kwargs.values()), ())
    return list(seq) if isinstance(seq, (list, tuple)) else [seq]


def at(*positions: int) -> Callable[[tuple, dict], list]:
    """Operands at these positional places (``at(1, 2)`` for ``where(c, x, y)``)."""

    def pick(args, kwargs) -> list:
        return [args[i] for i in positions if i < len(args)]

    return pick


def after(position: int) -> Callable[[tuple, dict], list]:
    """Every positional operand from ``position`` on (``select_n(which, *cases)``)."""
    return lambda args, kwargs: list(args[position:])


def over_key_data(name: str, operands: Callable[[tuple, dict], list] | None = None) -> Callable:
    """Decorate an element-moving array function ``name`` so that it also takes key arrays.

    ``operands(args, kwargs)`` lists the arguments whose elements end up in the result (for
    ``where``, its second and third); if some are keys, all must be, as one array cannot hold
    keys and numbers (indices, masks and shapes are not operands).
    """

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            # Cheap until a key array exists: these functions are on every array path.
            if _made[0] and (_has_key(args) or (kwargs and _has_key(kwargs.values()))):
                return _on_key_data(name, fn, operands, args, kwargs)
            return fn(*args, **kwargs)

        return wrapped

    return wrap


def _on_key_data(name, fn, operands, args, kwargs):
    from spmd._src import tree_util as tu
    from spmd._src.vmap import vmap  # lazy: vmap sits above the array modules that use this

    if operands is not None:
        ops = operands(args, kwargs)
        others = [o for o in ops if o is not None and not is_key_array(o)]
        if others and len(others) < len(ops):
            dtype = getattr(others[0], "dtype", type(others[0]).__name__)
            # JAX's classes: jnp fails promoting key<fry> (ValueError), lax on the shapes.
            error = TypeError if name.startswith("lax.") else ValueError
            raise error(
                f"{name}: cannot combine typed key arrays (dtype key<fry>) with an operand of "
                f"dtype {dtype}; wrap key data with jax.random.wrap_key_data first."
            )
    leaves, tree = tu.tree_flatten((args, kwargs), is_leaf=is_key_array)
    where = [i for i, leaf in enumerate(leaves) if is_key_array(leaf)]
    key_cls = type(leaves[where[0]])  # the results are keys of the operands' implementation

    def on_data(*data):
        new = list(leaves)
        for i, d in zip(where, data):
            new[i] = d
        a, kw = tu.tree_unflatten(tree, new)
        return fn(*a, **kw)

    out = vmap(on_data, in_axes=-1, out_axes=-1)(*[leaves[i]._base for i in where])
    return tu.tree_map(key_cls, out)
