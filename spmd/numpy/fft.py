"""spmd.numpy.fft: discrete Fourier transforms (``jnp.fft``). Re-exports only."""

from spmd._src.numpy.fft import (  # noqa: F401
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)
