"""Indexing primitives, one module per kind: dynamic slicing (``slicing``), XLA's general
``gather`` (``gathering``) and the ``scatter`` family (``scattering``), and what those two share
(``common``: modes and dimension numbers). This package is the family's namespace; its modules
are re-exported here.
"""

from spmd._src.lax.indexing import common, gathering, scattering, slicing
from spmd._src.lax.indexing.common import *  # noqa: F403
from spmd._src.lax.indexing.gathering import *  # noqa: F403
from spmd._src.lax.indexing.scattering import *  # noqa: F403
from spmd._src.lax.indexing.slicing import *  # noqa: F403

__all__ = [*common.__all__, *gathering.__all__, *scattering.__all__, *slicing.__all__]
