"""spmd.scipy.stats: SciPy's statistical distributions and summary statistics on spmd arrays
(as ``jax.scipy.stats``). Re-exports only."""

from spmd._src.scipy.stats.kde import gaussian_kde  # noqa: F401
from spmd._src.scipy.stats.summary import mode, rankdata, sem  # noqa: F401
from spmd.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
