"""``jax.flatten_util``, ``jax.example_libraries`` (stax, optimizers), ``jax.experimental.ode``,
``pjit``, ``compute_on`` and ``shard_alike`` under spmd give what JAX 0.10.2 gives: the programs of
``tests/golden_gen/example_libraries_gen.py`` run on spmd and are compared with their records
(dtypes, weak types, shapes and integers exactly; floats within each program's tolerance;
errors by class)."""

import numpy as np
import pytest
from golden_compare import DEFAULT_TOL, load_golden_family

import spmd
import spmd.example_libraries.optimizers
import spmd.example_libraries.stax
import spmd.flatten_util  # noqa: F401

GEN, GOLDEN = load_golden_family("example_libraries", "programs")


def _diff(want, got, tol, where):
    """Differences between two records made by ``GEN.show``."""
    if isinstance(want, dict) and "dtype" in want:
        if not (isinstance(got, dict) and "dtype" in got):
            return [f"{where}: expected an array, got {got!r:.80}"]
        for k in ("dtype", "shape", "weak_type"):
            if want[k] != got[k]:
                return [f"{where}: {k} {got[k]}, expected {want[k]}"]
        w, g = np.array(want["values"]), np.array(got["values"])
        if w.dtype.kind in "iub" or want["dtype"] == "bool":
            ok = np.array_equal(w, g)
        else:
            t = tol if tol is not None else DEFAULT_TOL.get(want["dtype"], 1e-6)
            ok = w.shape == g.shape and np.allclose(g, w, rtol=t, atol=t, equal_nan=True)
        if not ok:
            return [f"{where}: values {g.ravel()[:6].tolist()}, expected {w.ravel()[:6].tolist()}"]
        return []
    if isinstance(want, dict) and isinstance(got, dict) and want.keys() == got.keys():
        if "float" in want:
            t = tol if tol is not None else 1e-12
            ok = abs(got["float"] - want["float"]) <= t + t * abs(want["float"])
            return [] if ok else [f"{where}: {got['float']}, expected {want['float']}"]
        (kind,) = want
        inner_w, inner_g = want[kind], got[kind]
        if isinstance(inner_w, list):
            if len(inner_w) != len(inner_g):
                return [f"{where}: {len(inner_g)} items, expected {len(inner_w)}"]
            return [e for i, (a, b) in enumerate(zip(inner_w, inner_g)) for e in
                    _diff(a, b, tol, f"{where}[{i}]")]  # fmt: skip
        if isinstance(inner_w, dict):
            if inner_w.keys() != inner_g.keys():
                return [f"{where}: keys {sorted(inner_g)}, expected {sorted(inner_w)}"]
            return [e for k in inner_w for e in _diff(inner_w[k], inner_g[k], tol, f"{where}.{k}")]
        return [] if inner_w == inner_g else [f"{where}: {got!r:.80}, expected {want!r:.80}"]
    return [] if want == got else [f"{where}: {got!r:.120}, expected {want!r:.120}"]


@pytest.mark.parametrize("name", sorted(GEN.PROGRAMS))
def test_program_like_jax(name):
    fn, tol = GEN.PROGRAMS[name]
    want = GOLDEN[name]
    assert want["tol"] == tol  # the generator and the golden file agree
    got = GEN.run(spmd, fn)
    errs = _diff(want["out"], got, tol, name)
    assert not errs, "\n".join(errs[:10])


def test_every_program_has_a_golden():
    assert sorted(GEN.PROGRAMS) == sorted(GOLDEN)
