"""Small reference libraries JAX ships for examples (``jax.example_libraries``): ``stax`` for
neural network layers and ``optimizers`` for first-order optimizers, written on spmd's public
API so JAX programs using them run unchanged under ``import spmd as jax``."""
