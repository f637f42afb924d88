"""``debug.breakpoint`` (spmd/_src/debugger.py): debugger sessions, a script run with commands
on stdin, print what JAX 0.10's do (tests/golden_gen/debugger_gen.py recorded them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from golden_compare import load_golden_family

import spmd

_HERE = Path(__file__).resolve().parent
gen, GOLDEN = load_golden_family("debugger", "sessions")


def test_golden_sessions_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.SESSIONS)


@pytest.mark.parametrize("session", sorted(gen.SESSIONS))
def test_session_matches_jax(session):
    env = {**os.environ, "PYTHONPATH": str(_HERE.parent)}
    imports = "import spmd as jax; import spmd.numpy as jnp"
    assert gen.run(sys.executable, imports, session, env) == GOLDEN[session]


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown debugger backend 'web'"):
        spmd.debug.breakpoint(backend="web")
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        spmd.debug.breakpoint(frames=3)


def test_token_is_returned_and_quit_exits(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("p v\nq\n"))
    x = spmd.numpy.arange(2.0)

    def f(v):
        return spmd.debug.breakpoint(token=v) * 2

    with pytest.raises(SystemExit):
        spmd.jit(f)(x)
    assert "Array([0., 1.], dtype=float32)" in capsys.readouterr().out
