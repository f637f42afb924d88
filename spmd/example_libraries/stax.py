"""Neural network layers as (init_fun, apply_fun) pairs, under JAX's
``jax.example_libraries.stax`` names.

``init_fun(rng, input_shape)`` gives ``(output_shape, params)``; ``apply_fun(params, inputs,
**kwargs)`` the outputs (``rng=`` a PRNG key for layers that need randomness). Combinators
(``serial``, ``parallel``) build layers out of layers. Parameters come from
``spmd.nn.initializers`` with the keys split as JAX splits them, so a model's initial parameters
for a key are JAX's.
"""

from __future__ import annotations

import functools
import math

import spmd.numpy as jnp
from spmd import lax, random
from spmd.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from spmd.nn.initializers import glorot_normal, normal, ones, zeros

# Older names kept by JAX's module.
logsoftmax = log_softmax
glorot = glorot_normal
randn = normal


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: ``inputs @ W + b``."""

    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b

    return init_fun, apply_fun


def _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape):
    lhs_spec, rhs_spec, _ = dimension_numbers
    spatial = iter(filter_shape)
    return [
        out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
        for c in rhs_spec
    ]


def GeneralConv(
    dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID", W_init=None,
    b_init=normal(1e-6),
):  # fmt: skip
    """A convolution with the given (lhs, rhs, out) layout strings."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = strides or one
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
        output_shape = lax.conv_general_shape_tuple(
            input_shape, kernel_shape, strides, padding, dimension_numbers
        )
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        out = lax.conv_general_dilated(
            inputs, W, strides, padding, one, one, dimension_numbers=dimension_numbers
        )
        return out + b

    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(
    dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID", W_init=None,
    b_init=normal(1e-6),
):  # fmt: skip
    """A transposed convolution with the given (lhs, rhs, out) layout strings."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = strides or one
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
        output_shape = lax.conv_transpose_shape_tuple(
            input_shape, kernel_shape, strides, padding, dimension_numbers
        )
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        out = lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)
        return out + b

    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):  # fmt: skip
    """Normalization over ``axis`` by the batch's own statistics (no running averages),
    then an elementwise scale ``gamma`` and shift ``beta``."""
    _beta_init = lambda rng, shape: beta_init(rng, shape) if center else ()  # noqa: E731
    _gamma_init = lambda rng, shape: gamma_init(rng, shape) if scale else ()  # noqa: E731
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        return input_shape, (_beta_init(k1, shape), _gamma_init(k2, shape))

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        # The parameters broadcast along the normalized axes.
        ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z

    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying ``fun(inputs, **fun_kwargs)``."""

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _non_spatial_axes(spec, ndim):
    return (0, ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))


def _pooled_shape(input_shape, window_shape, strides, pads):
    # Windows that fit, and 0 where none does: computed here rather than by
    # lax.reduce_window_shape_tuple because stax's idiom passes -1 for an unknown batch size
    # (JAX's gives 0 there; spmd's refuses a negative size).
    return tuple(
        max(0, (n + lo + hi - w) // s + 1)
        for n, w, s, (lo, hi) in zip(input_shape, window_shape, strides, pads)
    )


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over the spatial axes (``spec``: the layout string, by default
        batch first and channels last)."""
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        # Window and strides of 1 on the batch and channel axes.
        for i in sorted(_non_spatial_axes(spec, len(window_shape) + 2)):
            window_shape = window_shape[:i] + (1,) + window_shape[i:]
            strides = strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window_shape, strides, padding)
            return _pooled_shape(input_shape, window_shape, strides, pads), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window_shape, strides, padding)
            return rescale(out, inputs, spec) if rescale else out

        return init_fun, apply_fun

    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.0)


def _normalize_by_window_size(dims, strides, padding):
    def rescale(outputs, inputs, spec):
        non_spatial = _non_spatial_axes(spec, inputs.ndim)
        spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim) if i not in non_spatial)
        # How many input elements each window covers (fewer at padded edges).
        one = jnp.ones(spatial_shape, dtype=inputs.dtype)
        window_sizes = lax.reduce_window(one, 0.0, lax.add, dims, strides, padding)
        for i in sorted(non_spatial):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes

    return rescale


AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)


def Flatten():
    """A layer flattening all but the leading (batch) axis."""

    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


Flatten = Flatten()


def Identity():
    """A layer returning its input."""

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return inputs

    return init_fun, apply_fun


Identity = Identity()


def FanOut(num):
    """A layer giving ``num`` copies of its input."""

    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num

    return init_fun, apply_fun


def FanInSum():
    """A layer summing a list of inputs."""

    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)

    return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
    """A layer concatenating a list of inputs along ``axis``."""

    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return input_shape[0][:ax] + (size,) + input_shape[0][ax + 1 :], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)

    return init_fun, apply_fun


_DROPOUT_NEEDS_RNG = (
    "Dropout layer requires apply_fun to be called with a PRNG key argument. That is, instead "
    "of `apply_fun(params, inputs)`, call it like `apply_fun(params, inputs, rng)` where `rng` "
    "is a PRNG key (e.g. from `jax.random.key`)."
)


def Dropout(rate, mode="train"):
    """Dropout in ``mode == 'train'`` (``rate`` is the probability of KEEPING an element, and
    kept elements are scaled by ``1 / rate``); the identity in any other mode."""

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(_DROPOUT_NEEDS_RNG)
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


def serial(*layers):
    """The layers one after another; the PRNG key is split once per layer."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, r in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=r, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers):
    """The layers side by side: the i-th applied to the i-th of a sequence of inputs (pair it
    with ``FanOut`` and a fan-in layer to branch)."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        shapes, params = zip(
            *[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]
        )
        return shapes, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the input shape is known."""

    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
