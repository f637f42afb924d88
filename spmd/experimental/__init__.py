"""spmd.experimental: older entry points kept for programs written against them."""

from spmd.experimental import shard_map  # noqa: F401
