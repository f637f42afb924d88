"""The code cells of JAX's "Convolutions" page (docs/101/convolutions.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints: the dimension numbers' text, the output shapes, and the convolutions' outputs
(the arrays the page plots). Beyond the cells, the program checks the page's claims that have
no cell of their own, each marked "claim": the backward pass of a strided convolution is the
transposed convolution; lax.conv and lax.conv_with_general_padding take NCHW images and OIHW
kernels; jnp.convolve / correlate and jax.scipy.signal's convolutions work as NumPy's and
SciPy's.

Left out or shrunk: the plots (the plotted arrays, an output's channel 0, are recorded
instead); the 2D image is 32x30 rather than 200x198 with 4-pixel squares rather than 10-pixel
ones and the 3D grid is 12^3 rather than 30^3 (the convolutions mean the same at any size; the
records stay small).
"""

from __future__ import annotations

import importlib

import numpy as np

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    lax = jax.lax

    # -- Setup: a kernel and an image
    # 2D kernel - HWIO layout
    kernel = jnp.zeros((3, 3, 3, 3), dtype=jnp.float32)
    kernel += jnp.array([[1, 1, 0], [1, 0, -1], [0, -1, -1]])[:, :, jnp.newaxis, jnp.newaxis]
    rec("setup.kernel", kernel)

    # NHWC layout
    img = jnp.zeros((1, 32, 30, 3), dtype=jnp.float32)
    for k in range(3):
        x = 4 + 9 * k
        y = 3 + 9 * k
        img = img.at[0, x : x + 4, y : y + 4, k].set(1.0)
    rec("setup.img", img)
    rec("setup.kernel_plot", kernel[:, :, 0, 0])

    # -- Dimension numbers define dimensional layout
    dn = lax.conv_dimension_numbers(img.shape, kernel.shape, ("NHWC", "HWIO", "NHWC"))
    rec("dn", str(dn))
    rec("dn.type", type(dn).__name__)

    out = lax.conv_general_dilated(img, kernel, (1, 1), "SAME", (1, 1), (1, 1), dn)
    rec("same.shape", out.shape)
    rec("same.plot", np.array(out)[0, :, :, 0])

    out = lax.conv_general_dilated(img, kernel, (2, 2), "SAME", (1, 1), (1, 1), dn)
    rec("strided.shape", out.shape)
    rec("strided.plot", np.array(out)[0, :, :, 0])

    out = lax.conv_general_dilated(img, kernel, (1, 1), "VALID", (1, 1), (12, 12), dn)
    rec("dilated.shape", out.shape)
    rec("dilated.plot", np.array(out)[0, :, :, 0])

    # -- Transposed convolutions
    out = lax.conv_transpose(img, kernel, (2, 2), "SAME", dimension_numbers=dn,
                             transpose_kernel=True)  # fmt: skip
    rec("transpose.shape", out.shape)
    rec("transpose.plot", np.array(out)[0, :, :, 0])

    # transposed conv = 180deg kernel rotation plus LHS dilation
    kernel_rot = jnp.rot90(jnp.rot90(kernel, axes=(0, 1)), axes=(0, 1))
    manual = lax.conv_general_dilated(img, kernel_rot, (1, 1), ((2, 1), (2, 1)), (2, 2),
                                      (1, 1), dn)  # fmt: skip
    rec("transpose.allclose", jnp.allclose(out, manual))
    # claim: a transposed convolution is what the backward pass of a strided one computes.
    strided = lambda x: lax.conv_general_dilated(x, kernel, (2, 2), "SAME", (1, 1), (1, 1), dn)  # noqa: E731
    # (small integers: the sums are exact in any order)
    ct = (jnp.arange(16 * 15 * 3) % 7).astype(jnp.float32).reshape(1, 16, 15, 3)
    back = jax.vjp(strided, img)[1](ct)[0]
    rec("claim.backward", back[0, :, :, 0])
    forward = lax.conv_transpose(ct, kernel, (2, 2), "SAME", dimension_numbers=dn,
                                 transpose_kernel=True)  # fmt: skip
    rec("claim.backward.allclose", jnp.allclose(back, forward))

    # claim (the note): lax.conv and lax.conv_with_general_padding take NCHW images and OIHW
    # kernels, as conv_general_dilated with those layouts.
    img_nchw, kernel_oihw = img.transpose(0, 3, 1, 2), kernel.transpose(3, 2, 0, 1)
    nchw = ("NCHW", "OIHW", "NCHW")
    conv = lax.conv(img_nchw, kernel_oihw, (2, 2), "SAME")
    rec("claim.conv", conv[0, 0])
    general = lax.conv_general_dilated(img_nchw, kernel_oihw, (2, 2), "SAME",
                                       dimension_numbers=nchw)  # fmt: skip
    rec("claim.conv.same_as_general", jnp.array_equal(conv, general))
    padded = lax.conv_with_general_padding(img_nchw, kernel_oihw, (1, 2), ((2, 1), (0, 3)),
                                           (1, 1), (2, 1))  # fmt: skip
    rec("claim.conv_with_general_padding", padded[0, 0])

    # claim (the introduction): the NumPy- and SciPy-style interfaces.
    signal = importlib.import_module(jax.__name__ + ".scipy.signal")
    a1, v1 = jnp.array([1.0, 2.0, -1.0, 0.5, 3.0]), jnp.array([0.5, -1.0, 2.0])
    rec("claim.np.convolve", [jnp.convolve(a1, v1, mode=m) for m in ("full", "same", "valid")])
    rec("claim.np.correlate", [jnp.correlate(a1, v1, mode=m) for m in ("full", "same", "valid")])
    a2 = img[0, 2:9, 2:8, 0] - img[0, 2:9, 3:9, 1]
    k2 = kernel[:2, :, 0, 0]
    rec("claim.signal.convolve", signal.convolve(a2, k2, mode="same"))
    rec("claim.signal.correlate", signal.correlate(a2, k2, mode="valid"))
    rec("claim.signal.convolve2d", signal.convolve2d(a2, k2))
    rec("claim.signal.correlate2d", signal.correlate2d(a2, k2, mode="same"))

    # -- 1D convolutions
    # 1D kernel - WIO layout
    kernel = jnp.array(
        [[[1, 0, -1], [-1, 0, 1]], [[1, 1, 1], [-1, -1, -1]]], dtype=jnp.float32
    ).transpose([2, 1, 0])
    # 1D data - NWC layout
    data = np.zeros((1, 200, 2), dtype=jnp.float32)
    for i in range(2):
        for k in range(2):
            x = 35 * i + 30 + 60 * k
            data[0, x : x + 30, k] = 1.0
    rec("1d.in_shapes", [data.shape, kernel.shape])
    rec("1d.kernel", kernel)
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NWC", "WIO", "NWC"))
    rec("1d.dn", str(dn))
    out = lax.conv_general_dilated(data, kernel, (1,), "SAME", (1,), (1,), dn)
    rec("1d.shape", out.shape)
    rec("1d.plot", out[0])

    # -- 3D convolutions
    # Random 3D kernel - HWDIO layout
    kernel = jnp.array(
        [
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
            [[0, -1, 0], [-1, 0, -1], [0, -1, 0]],
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
        ],
        dtype=jnp.float32,
    )[:, :, :, jnp.newaxis, jnp.newaxis]
    # 3D data - NHWDC layout
    data = jnp.zeros((1, 12, 12, 12, 1), dtype=jnp.float32)
    x, y, z = np.mgrid[0:1:12j, 0:1:12j, 0:1:12j]
    data += (jnp.sin(2 * x * jnp.pi) * jnp.cos(2 * y * jnp.pi) * jnp.cos(2 * z * jnp.pi))[
        None, :, :, :, None
    ]
    rec("3d.in_shapes", [data.shape, kernel.shape])
    rec("3d.data", data)
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NHWDC", "HWDIO", "NHWDC"))
    rec("3d.dn", str(dn))
    out = lax.conv_general_dilated(data, kernel, (1, 1, 1), "SAME", (1, 1, 1), (1, 1, 1), dn)
    rec("3d.shape", out.shape)
    rec("3d", out)
    # The density plots' colour map: alpha ramps as linspace(0, 1, N)**3 (N = viridis' 256).
    rec("3d.alpha", jnp.linspace(0, 1, 256) ** 3)
    rec("3d.ravel", [data.ravel().shape, out.ravel().shape])
