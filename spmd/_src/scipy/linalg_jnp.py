"""The ``jnp`` namespace of the ``scipy.linalg`` modules: ``spmd.numpy``'s functions collected
from ``spmd._src.numpy`` (the public package is a higher layer than ``spmd._src.scipy``), with
``linalg`` for ``jnp.linalg``."""

from spmd._src.array import Array as ndarray  # noqa: F401
from spmd._src.numpy import linalg  # noqa: F401,E402
from spmd._src.numpy.array_constructors import *  # noqa: F401,F403
from spmd._src.numpy.creation import *  # noqa: F401,F403
from spmd._src.numpy.einsum import *  # noqa: F401,F403
from spmd._src.numpy.einsum_path import *  # noqa: F401,F403
from spmd._src.numpy.functional import *  # noqa: F401,F403
from spmd._src.numpy.histograms import *  # noqa: F401,F403
from spmd._src.numpy.indexing import *  # noqa: F401,F403
from spmd._src.numpy.io_printing import *  # noqa: F401,F403
from spmd._src.numpy.lax_numpy import *  # noqa: F401,F403
from spmd._src.numpy.misc import *  # noqa: F401,F403
from spmd._src.numpy.numeric_extra import *  # noqa: F401,F403
from spmd._src.numpy.polynomial import *  # noqa: F401,F403
from spmd._src.numpy.products import *  # noqa: F401,F403
from spmd._src.numpy.rearranging import *  # noqa: F401,F403
from spmd._src.numpy.reductions import *  # noqa: F401,F403
from spmd._src.numpy.scalar_types import *  # noqa: F401,F403
from spmd._src.numpy.setops import *  # noqa: F401,F403
from spmd._src.numpy.shape_ops import *  # noqa: F401,F403
from spmd._src.numpy.sorting import *  # noqa: F401,F403
from spmd._src.numpy.statistics import *  # noqa: F401,F403
from spmd._src.numpy.type_names import *  # noqa: F401,F403
from spmd._src.numpy.ufuncs import *  # noqa: F401,F403
from spmd._src.numpy.updates import *  # noqa: F401,F403
