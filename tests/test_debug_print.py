"""``debug.print``, ``debug.log`` and ``debug.callback`` (spmd/_src/debugging.py): the jaxprs
print as JAX 0.10's and the lines printed eagerly and under jit are JAX's, on the programs of
tests/golden_gen/debug_print_gen.py; format errors raise JAX's classes when traced; NumPy's
print options are those of the trace; debug.log makes a logging record at the caller's line."""

from __future__ import annotations

import contextlib
import io
import logging
import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp

gen, GOLDEN = load_golden_family("debug_print")


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_jax(name):
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, np=np)
    # Under vmap the jaxpr has one print per batch index, as JAX's (not one looping equation).
    assert gen.run_case(ns, name, jnp.arange(3.0) / 3) == GOLDEN[name]


def test_print_options_are_those_of_the_trace():
    f = spmd.jit(lambda x: spmd.debug.print("{}", x / 3))
    with np.printoptions(precision=2):
        f(jnp.arange(3.0))  # traced here
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f(jnp.arange(3.0))
    assert out.getvalue() == "[0.   0.33 0.67]\n"


def test_format_errors_come_before_any_work():
    ran = []
    f = spmd.jit(lambda x: (ran.append(1), spmd.debug.print("{0} {1}", x))[1])
    with pytest.raises(IndexError):
        f(jnp.ones(2))
    assert ran == [1]  # raised while tracing: nothing was printed


def test_bad_arguments():
    with pytest.raises(TypeError, match="format string comes first"):
        spmd.debug.print(None, 1)
    with pytest.raises(TypeError, match="must be a str"):
        spmd.debug.print(3)


def test_skip_format_check():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(IndexError):
        # The check is skipped: the error comes from the formatting itself, when it runs.
        spmd.debug.print("{} {}", jnp.ones(1), skip_format_check=True)


def test_log_records_at_the_callers_line(caplog):
    def body(x):
        spmd.debug.log("loss = {}", x.sum())

    f = spmd.jit(body)
    line = body.__code__.co_firstlineno + 1
    with caplog.at_level(logging.INFO, logger="spmd._src.debugging"):
        f(jnp.arange(4.0))
        f(jnp.arange(4.0))
    recs = [r for r in caplog.records if r.name == "spmd._src.debugging"]
    assert [r.getMessage() for r in recs] == ["loss = 6.0", "loss = 6.0"]
    assert all(r.levelno == logging.INFO and r.pathname == __file__ for r in recs)
    assert all(r.lineno == line and r.funcName == "body" for r in recs)


def test_log_two_call_form_and_level(caplog):
    with caplog.at_level(logging.WARNING, logger="spmd._src.debugging"):
        spmd.debug.log(ordered=True)("hidden {}", 1)
    assert not [r for r in caplog.records if r.name == "spmd._src.debugging"]
    with caplog.at_level(logging.INFO, logger="spmd._src.debugging"):
        spmd.debug.log(ordered=True)("shown {}", 1)
    assert [r.getMessage() for r in caplog.records] == ["shown 1"]
