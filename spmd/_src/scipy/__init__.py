"""The implementation of ``spmd.scipy``."""
