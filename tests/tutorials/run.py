"""Run one single-process tutorial program and write what it records as JSON:

    python run.py jax|spmd PROGRAM OUT.json

PROGRAM names a program of this directory (``<PROGRAM>_tutorial.py`` beside this
file). Each program runs in a process of its own: the tutorials set a global mesh
(``jax.set_mesh(mesh)``) and flip configuration flags. A program's ``SPMD_CONFIG`` (option ->
value) is applied before it runs under spmd.
"""

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from record import Recorder  # noqa: E402

backend, name, out = sys.argv[1:4]
if backend == "jax":
    import jax
else:
    import spmd as jax

spec = importlib.util.spec_from_file_location(name, HERE / f"{name}_tutorial.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if backend == "spmd":
    # spmd's own options a program asks for, e.g. {"spmd_default_axis_types": "explicit"} for a
    # tutorial written for JAX 0.10's Explicit make_mesh (spmd's default is Auto: docs/DESIGN.md).
    for option, value in getattr(module, "SPMD_CONFIG", {}).items():
        jax.config.update(option, value)
rec = Recorder()
module.program(jax, rec)
Path(out).write_text(json.dumps(rec, indent=1) + "\n")
