"""Window functions for the spectral estimators of ``spmd.scipy.signal`` (SciPy's
``get_window`` names), computed with NumPy: a window's length is a shape, so it is concrete.

Windows are periodic (``fftbins=True``, the form spectral analysis uses): the symmetric window of
length ``n + 1`` without its last point. A name this module lacks goes to SciPy's
``get_window`` when SciPy is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["get_window"]


def _general_cosine(m: int, a: list[float]) -> np.ndarray:
    fac = np.linspace(-np.pi, np.pi, m)
    return sum(ak * np.cos(k * fac) for k, ak in enumerate(a))


def _bartlett(m: int) -> np.ndarray:
    n = np.arange(m)
    return np.where(n <= (m - 1) / 2, 2 * n / (m - 1), 2 - 2 * n / (m - 1))


def _triang(m: int) -> np.ndarray:
    n = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        w = (2 * n - 1.0) / m
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (m + 1.0)
    return np.concatenate([w, w[-2::-1]])


def _tukey(m: int, alpha: float = 0.5) -> np.ndarray:
    if alpha <= 0:
        return np.ones(m)
    if alpha >= 1:
        return _general_cosine(m, [0.5, 0.5])
    n = np.arange(m)
    width = int(np.floor(alpha * (m - 1) / 2.0))
    n1, n3 = n[: width + 1], n[m - width - 1 :]
    w1 = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n1 / alpha / (m - 1))))
    w3 = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (m - 1))))
    return np.concatenate([w1, np.ones(m - len(n1) - len(n3)), w3])


def _parzen(m: int) -> np.ndarray:
    n = np.arange(-(m - 1) / 2.0, (m - 1) / 2.0 + 0.5, 1.0)
    na = n[n < -(m - 1) / 4.0]
    nb = n[np.abs(n) <= (m - 1) / 4.0]
    wa = 2 * (1 - np.abs(na) / (m / 2.0)) ** 3.0
    wb = 1 - 6 * (np.abs(nb) / (m / 2.0)) ** 2.0 + 6 * (np.abs(nb) / (m / 2.0)) ** 3.0
    return np.concatenate([wa, wb, wa[::-1]])


def _bohman(m: int) -> np.ndarray:
    fac = np.abs(np.linspace(-1, 1, m)[1:-1])
    w = (1 - fac) * np.cos(np.pi * fac) + 1.0 / np.pi * np.sin(np.pi * fac)
    return np.concatenate([[0.0], w, [0.0]])


def _barthann(m: int) -> np.ndarray:
    fac = np.abs(np.arange(m) / (m - 1.0) - 0.5)
    return 0.62 - 0.48 * fac + 0.38 * np.cos(2 * np.pi * fac)


def _gaussian(m: int, std: float) -> np.ndarray:
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-(n**2) / (2 * std * std))


def _cosine_family(a: list[float]):
    return lambda m: _general_cosine(m, a)


# name -> (symmetric window of length m >= 2, aliases, needs parameters)
_WINDOWS: dict[str, tuple[Any, tuple[str, ...], bool]] = {
    "hann": (_cosine_family([0.5, 0.5]), ("han",), False),
    "hamming": (_cosine_family([0.54, 0.46]), ("hamm", "ham"), False),
    "blackman": (_cosine_family([0.42, 0.50, 0.08]), ("black", "blk"), False),
    "nuttall": (
        _cosine_family([0.3635819, 0.4891775, 0.1365995, 0.0106411]), ("nutl", "nut"), False,
    ),
    "blackmanharris": (
        _cosine_family([0.35875, 0.48829, 0.14128, 0.01168]), ("blackharr", "bkh"), False,
    ),
    "flattop": (
        _cosine_family([0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368]),
        ("flat", "flt"),
        False,
    ),
    "boxcar": (np.ones, ("box", "ones", "rect", "rectangular"), False),
    "bartlett": (_bartlett, ("bart", "brt"), False),
    "triang": (_triang, ("triangle", "tri"), False),
    "cosine": (lambda m: np.sin(np.pi / m * (np.arange(m) + 0.5)), ("halfcosine",), False),
    "tukey": (_tukey, ("tuk",), False),
    "parzen": (_parzen, ("parz", "par"), False),
    "bohman": (_bohman, ("bman", "bmn"), False),
    "barthann": (_barthann, ("brthan", "bth"), False),
    "kaiser": (lambda m, beta: np.kaiser(m, beta), ("ksr",), True),
    "gaussian": (_gaussian, ("gauss", "gss"), True),
}  # fmt: skip
_ALIASES = {alias: name for name, (_, aliases, _) in _WINDOWS.items() for alias in aliases}


# SciPy's other windows (and their aliases): made by SciPy's get_window when it is installed.
_SCIPY_ONLY = {
    "chebwin", "cheb", "dpss", "exponential", "poisson", "general_cosine", "general_gaussian",
    "general gaussian", "general_gauss", "general gauss", "ggs", "general_hamming", "taylor",
    "taylorwin", "lanczos", "sinc",
}  # fmt: skip


def get_window(window: str | tuple, nx: int) -> np.ndarray:
    """The periodic window ``window`` (a name, or a tuple of a name and its parameters) of
    length ``nx``, as float64."""
    name, params = (window[0], tuple(window[1:])) if isinstance(window, tuple) else (window, ())
    key = _ALIASES.get(name, name)
    if key not in _WINDOWS and key not in _SCIPY_ONLY:
        raise ValueError(f"Invalid window name {name!r} in parameter window={window!r}.")
    if key not in _WINDOWS:
        try:
            from scipy.signal import get_window as scipy_get_window  # lazy: optional dependency
        except ImportError:
            raise ValueError(
                f"The {name!r} window needs SciPy (window={window!r}), which is not installed."
            ) from None
        return np.asarray(scipy_get_window(window, nx), np.float64)
    fn, _, needs_params = _WINDOWS[key]
    if needs_params and not params:
        raise ValueError(f"The {name!r} window needs one or more parameters -- pass a tuple.")
    if nx <= 1:
        return np.ones(max(nx, 0))
    return np.asarray(fn(nx + 1, *params), np.float64)[:nx]
