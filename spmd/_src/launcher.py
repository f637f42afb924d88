"""``spmd run``: start a program on several processes (an MPI job).

    spmd run -n 4 script.py [args...]
    spmd run -n 2 --devices 4 -m package.module [args...]
    spmd run -n 8 --hosts node1:4,node2:4 script.py   # over machines (MPI's ssh launch)

Each process runs the whole program on its own virtual devices (``--devices`` of them, else
``SPMD_NUM_DEVICES`` or the default 8); together they are one job whose devices are numbered
globally, as JAX's processes are. The processes are started by MPI's ``mpiexec`` (the one next to
this Python first: ``pip install 'spmd[mpi]'`` brings MPICH and mpi4py). An uncaught exception
on any rank ends the whole job with that rank's traceback; ``--timeout`` bounds how long a rank
waits at a collective for the others.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["find_mpiexec", "main", "run_command"]


def find_mpiexec() -> str | None:
    """``mpiexec`` next to this Python (a venv's MPICH), else on PATH."""
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here) or shutil.which("mpiexec")


def run_command(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that start the job."""
    env = dict(os.environ)
    if args.devices is not None:
        env["SPMD_NUM_DEVICES"] = str(args.devices)
    if args.timeout is not None:
        env["SPMD_COLLECTIVE_TIMEOUT"] = str(args.timeout)
    prog = ["-m", args.module] if args.module else [args.script]
    child = [sys.executable, *prog, *args.args]
    if args.n == 1 and not args.hosts:
        return child, env
    mpiexec = find_mpiexec()
    if mpiexec is None:
        raise SystemExit(
            "spmd run: more than one process needs MPI's mpiexec, and none was found next to "
            f"{sys.executable} or on PATH: pip install 'spmd[mpi]' (MPICH and mpi4py)."
        )
    hosts = ["-hosts", args.hosts] if args.hosts else []
    return [mpiexec, *hosts, "-n", str(args.n), *child], env


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spmd", description="spmd's command line.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a program on several processes (an MPI job)")
    r.add_argument("-n", type=int, default=1, help="number of processes (default 1)")
    r.add_argument("--devices", type=int, default=None, help="virtual devices per process")
    r.add_argument(
        "--timeout", type=float, default=None, help="seconds a collective waits for every rank"
    )
    r.add_argument(
        "--hosts",
        default=None,
        help="machines to start the processes on, as MPICH's mpiexec -hosts takes them "
        "(host[:count],...; the same Python and spmd must be installed at the same path there)",
    )
    r.add_argument("-m", dest="module", default=None, help="run a module, as python -m does")
    r.add_argument("script", nargs="?", help="the program to run")
    r.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.module and args.script is not None:
        args.args = [args.script, *args.args]
        args.script = None
    if not args.module and args.script is None:
        _parser().error("run: give a script (or -m module)")
    if args.n < 1:
        _parser().error(f"run: -n must be at least 1, got {args.n}")
    if args.devices is not None and args.devices < 1:
        _parser().error(f"run: --devices must be at least 1, got {args.devices}")
    cmd, env = run_command(args)
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
