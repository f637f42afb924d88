"""spmd.experimental.mesh_utils: device arrays for meshes. Re-exports only."""

from spmd._src.mesh_utils import create_device_mesh, create_hybrid_device_mesh

__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]
