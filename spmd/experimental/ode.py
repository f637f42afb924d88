"""Ordinary differential equations, under JAX's ``jax.experimental.ode`` name."""

from spmd._src.ode import odeint

__all__ = ["odeint"]
