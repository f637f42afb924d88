"""spmd.scipy.special: special functions. Re-exports only."""

from spmd._src.scipy.special import *  # noqa: F401,F403
from spmd._src.scipy.special_hyper import *  # noqa: F401,F403
from spmd._src.scipy.special_integrals import *  # noqa: F401,F403
