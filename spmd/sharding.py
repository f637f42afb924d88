"""spmd.sharding: meshes and shardings (``from spmd.sharding import Mesh, NamedSharding,
PartitionSpec as P``). Re-exports only."""

from spmd._src.lax.sharding import reshard  # noqa: F401
from spmd._src.mesh import (  # noqa: F401
    AbstractMesh,
    AxisType,
    Mesh,
    get_abstract_mesh,
    get_mesh,
    set_mesh,
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
