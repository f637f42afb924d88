"""Gaussian kernel density estimation (``spmd.scipy.stats.gaussian_kde``), a pytree (its
array fields are the leaves) so it passes through ``jit``, ``vmap`` and ``grad``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spmd._src import random, random_more
from spmd._src.numpy.util import check_arraylike
from spmd._src.scipy.stats._common import jnp, promote_dtypes, special
from spmd._src.tree_util import register_pytree_node_class

__all__ = ["gaussian_kde"]


@register_pytree_node_class
@dataclass(frozen=True, init=False)
class gaussian_kde:  # noqa: N801 -- SciPy's name
    """A Gaussian KDE of ``dataset`` (shape ``(d, n)``, or ``(n,)`` for one dimension) with
    optional ``weights``; ``bw_method`` is ``"scott"`` (default), ``"silverman"``, a scalar
    factor, or a callable of the estimator giving the factor."""

    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dataset.ndim != 2:
            raise ValueError(
                f"gaussian_kde: `dataset` must have shape (d, n); got shape {dataset.shape}"
            )
        if dataset.size <= 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes("gaussian_kde", dataset, weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if weights.shape[0] != n:
                raise ValueError("`weights` input should be of length n")
            weights = weights / jnp.sum(weights)
        else:
            (dataset,) = promote_dtypes("gaussian_kde", dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        self._set("neff", 1 / jnp.sum(weights**2))
        factor = self._factor(bw_method)
        data_cov = jnp.atleast_2d(jnp.cov(dataset, rowvar=True, bias=False, aweights=weights))
        self._set("covariance", data_cov * factor**2)
        self._set("inv_cov", jnp.linalg.inv(data_cov) / factor**2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _factor(self, bw_method):
        exponent = -1.0 / (self.d + 4)
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            return jnp.power(self.neff, exponent)
        if isinstance(bw_method, str) and bw_method == "silverman":
            return jnp.power(self.neff * (self.d + 2) / 4.0, exponent)
        if np.ndim(bw_method) == 0 and not isinstance(bw_method, (str, Callable)):
            return bw_method
        if callable(bw_method):
            return bw_method(self)
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        obj = object.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children):
            object.__setattr__(obj, name, value)
        return obj

    @property
    def d(self) -> int:
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        return self.dataset.shape[1]

    def _points(self, points):
        """``points`` as shape ``(d, m)``: a single d-vector is one point."""
        check_arraylike("gaussian_kde.evaluate", points)
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points

    def _log_terms(self, points):
        """``log(w_i) - (x - x_i)^T inv_cov (x - x_i) / 2`` of each point and data point, and
        the log normalizer ``log det(2 pi covariance) / 2``."""
        points = self._points(points)
        (points,) = promote_dtypes("gaussian_kde.evaluate", points)
        points = points.astype(self.dataset.dtype)
        diff = self.dataset[:, :, None] - points[:, None, :]
        energy = jnp.einsum("inm,ij,jnm->nm", diff, self.inv_cov, diff) / 2
        _, log_det = jnp.linalg.slogdet(2 * math.pi * self.covariance)
        return -energy, log_det / 2

    def evaluate(self, points):
        """The density at each of ``points``."""
        neg_energy, log_norm = self._log_terms(points)
        return jnp.sum(self.weights[:, None] * jnp.exp(neg_energy), axis=0) / jnp.exp(log_norm)

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The density at each point of ``x``."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log density, accurate far from the data (a log-sum-exp over data points)."""
        neg_energy, log_norm = self._log_terms(x)
        return special.logsumexp(neg_energy, axis=0, b=self.weights[:, None]) - log_norm

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density ``N(mean, cov)``."""
        mean = jnp.atleast_1d(jnp.squeeze(jnp.asarray(mean)))
        cov = jnp.atleast_2d(jnp.asarray(cov))
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        return _gaussian_overlap(
            self.dataset, self.weights, mean[:, None], 1.0, cov + self.covariance
        )

    def integrate_box_1d(self, low, high):
        """The probability of ``[low, high]`` (one-dimensional estimates only)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        sd = jnp.squeeze(jnp.sqrt(self.covariance))
        data = jnp.squeeze(self.dataset, axis=0)
        lo = jnp.squeeze((low - data) / sd)
        hi = jnp.squeeze((high - data) / sd)
        return jnp.sum(self.weights * (special.ndtr(hi) - special.ndtr(lo)))

    def integrate_kde(self, other):
        """The integral of the product of this density and ``other``'s."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        return _gaussian_overlap(
            self.dataset,
            self.weights,
            other.dataset,
            other.weights,
            self.covariance + other.covariance,
        )

    def resample(self, key, shape=()):
        """Draws of shape ``(d,) + shape``: a data point picked by weight, plus normal noise
        of the kernel's covariance (the same draws as JAX for the same key)."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random_more.multivariate_normal(
            eps_key,
            jnp.zeros(self.d, self.covariance.dtype),
            self.covariance,
            shape=shape,
            dtype=self.dataset.dtype,
        ).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not available (as in JAX): use ``integrate_box_1d``."""
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not available (as in JAX): the bandwidth is fixed at construction."""
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")


def _gaussian_overlap(x, wx, y, wy, cov):
    """``sum_ij wx_i wy_j N(x_i - y_j; 0, cov)`` for points in the columns of ``x`` and ``y``."""
    chol = jnp.linalg.cholesky(cov)
    diff = x[:, :, None] - y[:, None, :]
    d, n, m = diff.shape
    z = jnp.linalg.solve(chol, diff.reshape(d, n * m)).reshape(d, n, m)
    energy = jnp.sum(z * z, axis=0) / 2
    norm = (2 * math.pi) ** (d / 2) * jnp.prod(jnp.diagonal(chol))
    wy = jnp.broadcast_to(jnp.asarray(wy, x.dtype), (m,))
    return jnp.sum(wx[:, None] * wy[None, :] * jnp.exp(-energy)) / norm
