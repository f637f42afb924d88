"""How a traced value prints (``print(x)`` inside a transformed function), as JAX 0.10 prints it:

- under jit / make_jaxpr: its type, ``JitTracer(~int32[])`` (``~`` a weak type, ``@x`` a
  dimension sharded over an Explicit mesh axis, ``key<fry>[]`` a typed key);
- under vmap: the per-example type and the batched value's, ``VmapTracer(aval=float32[3],
  batched=float32[2,3])``;
- under jvp: ``JVPTracer(primal=1.0, tangent=1.0)``; under grad / linearize, where the tangent
  is being staged, ``GradTracer(primal=1.0, typeof(tangent)=f32[])``.

Other traces print ``Traced<f32[3]>with<TraceName>``. A value of a shard_map body traced for
an eager call (arguments known) prints each device's block, as JAX's eager shard_map does:
``body_values`` maps such a trace (by id) to the function that computes that text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spmd._src import core

# id(trace) -> text of a tracer of that trace (shard_map registers its eager body traces).
body_values: dict[int, Callable[[core.Tracer], str]] = {}


def _typeof(x: Any) -> str:
    from spmd._src.placement import typeof  # lazy: placement sits above the core

    try:
        return str(typeof(x))
    except Exception:  # noqa: BLE001 -- a tracer leaked out of its trace has no sharding
        aval = core.get_aval(x)
        return ("~" if aval.weak_type else "") + aval.str_short(short_dtypes=False)


def tracer_repr(t: core.Tracer, typed: Any = None) -> str:
    """The text of tracer ``t``; ``typed``: the value whose type it prints (a typed key array
    whose base is ``t``)."""
    from spmd._src.interpreters import ad, batching
    from spmd._src.interpreters import partial_eval as pe

    shown = t if typed is None else typed
    if isinstance(t, pe.JaxprTracer):
        values = body_values.get(id(t._trace))
        if values is not None and typed is None:
            return values(t)
        return f"JitTracer({_typeof(shown)})"
    if isinstance(t, batching.BatchTracer):
        return f"VmapTracer(aval={_typeof(shown)}, batched={_typeof(t.val)})"
    if isinstance(t, ad.JVPTracer):
        trace = t._trace
        if trace.tangent_trace is trace.parent_trace:
            return f"JVPTracer(primal={t.primal}, tangent={t.tangent})"
        tangent = getattr(t.tangent, "aval", None) or core.get_aval(t.tangent)
        return f"GradTracer(primal={t.primal}, typeof(tangent)={tangent.str_short()})"
    return f"Traced<{t.aval.str_short()}>with<{type(t._trace).__name__}>"
