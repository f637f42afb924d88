"""``ravel_pytree``: a pytree of arrays as one flat vector, and the function that rebuilds it.

Built on spmd.numpy / spmd.lax only, so it traces under jit, grad and vmap like any other code.
Dtypes follow JAX: leaves of one dtype are concatenated as they are (Python scalars stay weak)
and the rebuilder passes the dtype of its argument through; leaves of mixed dtypes are promoted
to their common (strong) dtype, and the rebuilder insists on that dtype and casts each piece
back to its leaf's dtype.
"""

from __future__ import annotations

import numpy as np

from spmd._src import dtypes
from spmd._src.tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves of ``pytree`` raveled and concatenated into one 1-D
    array, and a function mapping such a vector back to a pytree like ``pytree``."""
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _Unravel(treedef, unravel_list)


class _Unravel:
    """The rebuilder ``ravel_pytree`` returns (a plain callable: it holds no arrays but the
    leaves' shapes and dtypes, so jit may close over it)."""

    def __init__(self, treedef, unravel_list):
        self._treedef = treedef
        self._unravel_list = unravel_list

    def __call__(self, flat):
        return tree_unflatten(self._treedef, self._unravel_list(flat))

    def __repr__(self):
        return f"<unravel_pytree for {self._treedef}>"


def _ravel_list(leaves):
    import spmd.numpy as jnp  # lazy: built on the public jnp/lax, as JAX's is

    if not leaves:
        return jnp.zeros(0, dtypes.default_float_dtype()), _unravel_empty
    from_dtypes = tuple(dtypes.dtype(x) for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in leaves)
    shapes = tuple(tuple(np.shape(x)) for x in leaves)
    if all(dt == to_dtype for dt in from_dtypes):
        raveled = [jnp.ravel(x) for x in leaves]
    else:
        # lax's conversion keeps the result strong (jnp.astype of a weak leaf would too, but
        # this states it).
        from spmd import lax  # lazy: built on the public jnp/lax, as JAX's is

        raveled = [jnp.ravel(lax.convert_element_type(x, to_dtype)) for x in leaves]
    flat = jnp.concatenate(raveled) if len(raveled) > 1 else raveled[0]
    return flat, _UnravelList(sizes, shapes, from_dtypes, to_dtype)


def _unravel_empty(flat):
    if isinstance(flat, (list, tuple)):
        raise TypeError(
            f"unravel_pytree: expected an array of shape (0,), got a {type(flat).__name__}"
        )
    _check_shape(flat, 0)
    return []


def _check_shape(flat, size):
    shape = tuple(np.shape(flat))
    if shape != (size,):
        raise ValueError(
            f"unravel_pytree: expected a flat array of shape ({size},) (the total size of the "
            f"pytree's leaves), got shape {shape}"
        )


class _UnravelList:
    def __init__(self, sizes, shapes, from_dtypes, to_dtype):
        self.sizes, self.shapes = sizes, shapes
        self.from_dtypes, self.to_dtype = from_dtypes, to_dtype

    def __call__(self, flat):
        import spmd.numpy as jnp  # lazy: built on the public jnp/lax, as JAX's is
        from spmd import lax  # lazy: built on the public jnp/lax, as JAX's is

        if isinstance(flat, (list, tuple)):
            raise TypeError(
                f"unravel_pytree: expected an array of shape ({sum(self.sizes)},), got a "
                f"{type(flat).__name__}"
            )
        mixed = any(dt != self.to_dtype for dt in self.from_dtypes)
        if mixed:
            got = dtypes.dtype(flat)
            if got != self.to_dtype:
                # JAX checks the dtype first, and only when the leaves' dtypes were mixed.
                raise TypeError(
                    f"unravel function given array of dtype {got}, "
                    f"but expected dtype {self.to_dtype}"
                )
        _check_shape(flat, sum(self.sizes))
        flat = jnp.asarray(flat)
        offsets = np.cumsum((0,) + self.sizes)
        pieces = [flat[offsets[i] : offsets[i + 1]] for i in range(len(self.sizes))]
        out = []
        for piece, shape, dt in zip(pieces, self.shapes, self.from_dtypes):
            piece = piece.reshape(shape)
            if mixed and dt != self.to_dtype:
                if dtypes.issubdtype(self.to_dtype, np.complexfloating) and not (
                    dtypes.issubdtype(dt, np.complexfloating)
                ):
                    piece = jnp.real(piece)  # a real leaf from its complex slot: the real part
                piece = lax.convert_element_type(piece, dt)
            out.append(piece)
        return out
