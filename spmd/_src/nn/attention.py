"""``spmd.nn.dot_product_attention``: scaled dot-product attention, JAX 0.10's XLA
implementation.

``softmax(scale * Q K^T + bias, masked) V`` per batch and head, on arrays laid out as
``[batch, seq, heads, head_dim]`` (``BTNH``). Grouped-query attention: ``key`` and ``value`` may
have ``K`` heads for ``N = G * K`` query heads; query head ``k * G + g`` attends with key/value head
``k``. Computed as JAX computes it (so values, dtypes and gradients agree): query heads are split
into ``(K, G)`` and the per-group attention is ``vmap``-ed over ``G``; logits are at least float32,
masked logits take a large negative value (not -inf, so a fully masked row averages ``value``),
and the softmax runs in float32.

>>> import spmd.numpy as jnp
>>> from spmd import nn
>>> q = jnp.ones((1, 2, 1, 4))
>>> nn.dot_product_attention(q, q, q).shape
(1, 2, 1, 4)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.lax import elementwise as lax
from spmd._src.nn.functions import jnp, logsumexp, softmax
from spmd._src.numpy.einsum import einsum
from spmd._src.vmap import vmap

__all__ = ["dot_product_attention"]

_NAME = "dot_product_attention"


def _large_negative(dtype) -> Any:
    # -0.7 times the largest finite value (at most float32's), so that adding a few of them
    # neither overflows nor equals -inf.
    biggest = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return jnp.asarray(-0.7 * biggest, dtype=dtype)


def _causal_mask(t: int, s: int) -> Any:
    return jnp.tril(jnp.ones((t, s), dtype=bool))[None, None, :, :]


def _window_mask(t: int, s: int, window: tuple[int, int]) -> Any:
    # Query i sees keys j with i - left <= j <= i + right.
    left, right = window
    q_pos = jnp.array(range(t))[:, None]
    k_pos = jnp.array(range(s))[None, :]
    return jnp.logical_and(q_pos >= k_pos - right, q_pos <= k_pos + left)[None, None, :, :]


def _padding_mask_logits(t: int, s: int, q_len: Any, kv_len: Any) -> Any:
    q_ok = True if q_len is None else jnp.arange(0, t)[None, :, None] < q_len[:, None, None]
    kv_ok = True if kv_len is None else jnp.arange(0, s)[None, None, :] < kv_len[:, None, None]
    return jnp.logical_and(q_ok, kv_ok)[:, None, :, :]


def _padding_mask_encoded(t: int, q_len: Any) -> Any:
    return (jnp.arange(0, t)[None, :] < q_len[:, None])[:, :, None, None]


def _apply_masks(logits, mask, is_causal, q_len, kv_len, window):
    if mask is None and not is_causal and q_len is None and kv_len is None and window is None:
        return logits
    keep = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        keep = jnp.logical_and(keep, mask)
    t, s = logits.shape[2], logits.shape[3]
    if is_causal:
        keep = jnp.logical_and(keep, _causal_mask(t, s))
    if window is not None:
        keep = jnp.logical_and(keep, _window_mask(t, s, window))
    if q_len is not None or kv_len is not None:
        keep = jnp.logical_and(keep, _padding_mask_logits(t, s, q_len, kv_len))
    return jnp.where(keep, logits, _large_negative(logits.dtype))


def _attention_one_group(
    query, key, value, bias, mask, q_len, kv_len, *, is_causal, scale, window, return_residual
):
    # One query head per key/value head: query [B,T,K,H], key and value [B,S,K,H].
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded = _apply_masks(logits, mask, is_causal, q_len, kv_len, window).astype(np.float32)
    probs = softmax(padded, axis=-1).astype(key.dtype)
    encoded = einsum("BNTS,BSNH->BTNH", probs, value)
    if q_len is not None:
        # Padded query positions give zeros (their softmax rows are uniform, not meaningful).
        encoded = encoded * _padding_mask_encoded(encoded.shape[1], q_len).astype(encoded.dtype)
    if return_residual:
        lse = logsumexp(padded, axis=-1).astype(key.dtype)
        return encoded, lax.stop_gradient(jnp.transpose(lse, (0, 2, 1)))
    return encoded


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_len, kv_len, window, resid):
    b, t, n, h = query.shape
    k = key.shape[2]
    g = n // k
    query = jnp.reshape(query, (b, t, k, g, h))

    def grouped(x):
        # A [B, N or 1, T, S] bias or mask as [B, K or 1, G, T, S] (the group axis is vmapped).
        if x is None:
            return None
        xb, xn, xt, xs = x.shape
        if xn == 1:
            return jnp.broadcast_to(x[:, :, None, :, :], (xb, xn, g, xt, xs))
        return jnp.reshape(x, (xb, k, g, xt, xs))

    core = functools.partial(
        _attention_one_group,
        is_causal=is_causal,
        scale=scale,
        window=window,
        return_residual=resid,
    )
    out = vmap(core, in_axes=(3, None, None, 2, 2, None, None), out_axes=3)(
        query, key, value, grouped(bias), grouped(mask), q_len, kv_len
    )
    if resid:
        encoded, lse = out
        return jnp.reshape(encoded, (b, t, n, h)), jnp.reshape(lse, (b, t, n))
    return jnp.reshape(out, (b, t, n, h))


def _as_4d(x):
    x = jnp.asarray(x)
    if x.ndim < 4:
        return jnp.expand_dims(x, tuple(range(4 - x.ndim)))
    return x


def _check(x, shape: Sequence[int], dtype, name: str) -> None:
    if x is None:
        return
    if x.ndim != len(shape):
        raise ValueError(f"{_NAME}: {name} ndim should be {len(shape)}, but got {x.ndim}")
    if dtype is not None and x.dtype != dtype:
        raise ValueError(f"{_NAME}: {name} dtype should be {dtype}, but got {x.dtype}")
    for want, got in zip(shape, x.shape):
        if want != -1 and want != got:
            raise ValueError(f"{_NAME}: {name} shape should be {list(shape)}: but got {x.shape}")


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Any = None,
    key_value_seq_lengths: Any = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
    return_residual: bool = False,
) -> Any:
    """Scaled dot-product attention on ``[batch, seq, heads, head_dim]`` arrays (the batch
    dimension may be left out).

    ``bias`` (added to the logits) and boolean ``mask`` (False drops a logit) broadcast to
    ``[B, N, T, S]``; ``is_causal`` keeps keys at or before each query; ``query_seq_lengths`` /
    ``key_value_seq_lengths`` (int32 ``[B]``) mask padding (padded query rows give zeros);
    ``local_window_size`` ``w`` or ``(left, right)`` keeps keys within the window. ``scale``
    defaults to ``1 / sqrt(head_dim)``. Grouped-query attention: ``key``/``value`` may have fewer
    heads than ``query`` (a divisor of its count). ``implementation`` is ``None`` or ``"xla"``;
    ``"cudnn"`` needs a GPU. With ``return_residual``, also returns the (stopped-gradient)
    logsumexp of each query row's logits, ``[B, T, N]``.

    >>> q = jnp.array([[[[1.0, 0.0]], [[0.0, 1.0]]]])
    >>> nn.dot_product_attention(q, q, q, is_causal=True)[0, :, 0]
    Array([[1.        , 0.        ],
           [0.33023846, 0.66976154]], dtype=float32)
    """
    out_shape = jnp.asarray(query).shape
    query, key, value = _as_4d(query), _as_4d(key), _as_4d(value)
    bias = None if bias is None else _as_4d(bias)
    mask = None if mask is None else _as_4d(mask)
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    b, s, k, h = key.shape
    _check(value, [b, s, k, h], key.dtype, "value")
    _check(query, [b, -1, -1, h], key.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [b], np.dtype(np.int32), "query_seq_lengths")
    _check(key_value_seq_lengths, [b], np.dtype(np.int32), "key_value_seq_lengths")
    if query.shape[-2] % k:
        raise ValueError(
            f"{_NAME}: the number of query heads must be a multiple of key/value heads, but got "
            f"{query.shape[-2]} vs {k}"
        )
    if implementation == "cudnn":
        # JAX's cuDNN kernels need an NVIDIA GPU; spmd runs on NumPy (JAX on CPU says the same).
        raise RuntimeError("cuDNN is not detected.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    out = _attention_xla(
        query,
        key,
        value,
        bias,
        mask,
        is_causal,
        scale,
        query_seq_lengths,
        key_value_seq_lengths,
        local_window_size,
        return_residual,
    )
    if return_residual:
        encoded, lse = out
        return jnp.reshape(encoded, out_shape), jnp.reshape(lse, out_shape[:-1])
    return jnp.reshape(out, out_shape)
