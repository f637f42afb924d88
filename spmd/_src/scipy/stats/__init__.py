"""Implementations of ``spmd.scipy.stats``: one module per distribution (as in SciPy), the
summary statistics in ``summary`` and the kernel density estimate in ``kde``."""
