"""Regenerate the golden files: run every ``tests/golden_gen/*_gen.py`` with this interpreter.

Run it with a Python that has real JAX installed::

    /path/to/jax/python tests/gen_golden.py
"""

import os
import subprocess
import sys
from pathlib import Path

env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
failed = []
for script in sorted((Path(__file__).parent / "golden_gen").glob("*_gen.py")):
    print(f"== {script.name}", flush=True)
    if subprocess.run([sys.executable, str(script)], env=env, check=False).returncode:
        failed.append(script.name)
sys.exit(f"failed: {', '.join(failed)}" if failed else 0)
