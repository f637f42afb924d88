"""Run one single-process tutorial program and write what it records as JSON:

    python run.py jax|spmd PROGRAM OUT.json

PROGRAM names a program of this directory (``<PROGRAM>_tutorial.py`` beside this
file). Each program runs in a process of its own: the tutorials set a global mesh
(``jax.set_mesh(mesh)``) and flip configuration flags.
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
rec = Recorder()
module.program(jax, rec)
Path(out).write_text(json.dumps(rec, indent=1) + "\n")
