"""spmd.sharding: meshes and shardings (``from spmd.sharding import Mesh, NamedSharding,
PartitionSpec as P``). Re-exports only."""

from spmd._src.lax.axis_regions import auto_axes, explicit_axes  # noqa: F401
from spmd._src.lax.sharding import reshard  # noqa: F401
from spmd._src.mesh import (  # noqa: F401
    AbstractMesh,
    AxisType,
    Mesh,
    get_abstract_mesh,
    get_mesh,
    set_mesh,
    use_abstract_mesh,
    use_mesh,
)
from spmd._src.sharding import (  # noqa: F401
    DuplicateSpecError,
    IndivisibleError,
    NamedSharding,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    UnevenShardingWarning,
)


def make_single_device_sharding(device, *, memory_kind=None) -> SingleDeviceSharding:
    """The sharding that places a whole array on ``device``."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)
