"""Run by tests/test_multiprocess.py under `spmd run -n 2`: each mode goes wrong one way."""

import os
import sys
import time

mode = sys.argv[1]
if mode == "devices":  # rank 1 asks for a device more than rank 0
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    os.environ["SPMD_NUM_DEVICES"] = str(2 + rank)

import spmd as jax  # noqa: E402
from spmd.experimental import multihost_utils as mhu  # noqa: E402

me = jax.process_index()
if mode == "raise" and me == 1:
    raise ValueError("rank 1 fails here")
if mode == "mismatch":
    if me == 0:
        mhu.sync_global_devices("a")
    else:
        mhu.process_allgather(1)
if mode == "late" and me == 1:
    time.sleep(60)
mhu.sync_global_devices("end")
print("done", me, flush=True)
