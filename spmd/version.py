"""spmd.version: the version string (``__version__``), as ``jax.version`` has it."""

__version__ = "0.1.0"
_version = __version__

__all__ = ["__version__"]
