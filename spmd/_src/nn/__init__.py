"""The implementation of ``spmd.nn``: activation functions and initializers."""
