"""``jax.ad``: the entries of ``VJP.with_refs`` and the placeholders a VJP call returns."""

from spmd._src.vjp_object import DidntWant, DontWant, GradRef, GradValue

__all__ = ["DidntWant", "DontWant", "GradRef", "GradValue"]
