"""Fixtures shared by the test files."""

import pytest

import spmd


@pytest.fixture
def x64():
    """64-bit types on for the test, restored after it."""
    old = spmd.config.jax_enable_x64
    spmd.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        spmd.config.update("jax_enable_x64", old)
