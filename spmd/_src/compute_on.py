"""``compute_on``: run a computation on a given kind of compute unit.

spmd computes everything on the host CPU already, so the annotation changes nothing; it is
validated as JAX validates it, so programs that name a unit JAX does not know fail alike.
"""

from __future__ import annotations

import contextlib

# The compute types JAX 0.10.2 accepts ('gpu_stream:<n>' names a GPU stream).
_KNOWN = ("device_host", "device", "tpu_sparsecore")


def _check(compute_type) -> None:
    if not isinstance(compute_type, str):
        raise TypeError(
            f"compute_on: compute_type must be a string, got {compute_type!r} of type "
            f"{type(compute_type).__name__}."
        )
    # JAX takes any 'gpu_stream:' prefix (even with no stream number after it).
    if compute_type not in _KNOWN and not compute_type.startswith("gpu_stream:"):
        raise ValueError(
            f"compute_on: invalid compute type {compute_type!r}; the supported values are "
            "'device_host', 'device', 'tpu_sparsecore' and 'gpu_stream:<n>'."
        )


@contextlib.contextmanager
def compute_on(compute_type: str):
    """Context manager (or decorator) running what it encloses on ``compute_type`` ('device'
    or 'device_host', ...): in spmd a checked no-op, as all compute is on the host."""
    _check(compute_type)
    yield
