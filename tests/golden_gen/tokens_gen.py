"""Record JAX's results for ``tests/cases_tokens.py`` into ``tests/golden/tokens.json`` (read by
``tests/test_tokens.py``), as ``dot_algorithms_gen.py`` records its cases, and under the key
``objects`` what JAX's token objects are and do (``objects(ns)``, run by the test with spmd).

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/tokens_gen.py``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "tokens.json"


def _show(ns, v):
    """A value as text: tokens by their class name and repr (module and address masked: spmd's
    Token lives elsewhere than JAX's), arrays by their repr, containers item by item."""
    if isinstance(v, (tuple, list)):
        return [_show(ns, x) for x in v]
    if isinstance(v, dict):
        return {k: _show(ns, x) for k, x in v.items()}
    r = re.sub(r"^<[\w.]+\.(\w+) object at 0x[0-9a-f]+>$", r"<\1 object>", repr(v))
    return f"{'Array' if isinstance(v, ns.jax.Array) else type(v).__name__}: {r}"


def objects(ns) -> dict:
    """What tokens are outside programs: made eagerly or returned by jit, passed back into jit,
    waited for, flattened, placed, typed, and eval_shape's view of one (``ns`` holds ``jax``,
    ``lax``, ``jnp`` and ``np``). Each entry is text, or the class of the error raised."""
    jax, lax = ns.jax, ns.lax
    t = jax.jit(lambda: lax.create_token())()
    e = lax.create_token()
    probes = {
        "jit_result": lambda: t,
        "eager": lambda: e,
        "is_array": lambda: isinstance(t, jax.Array),
        "bool": lambda: bool(t),
        "method_block_until_ready": lambda: t.block_until_ready(),
        "block_until_ready_is_same": lambda: [
            jax.block_until_ready(t) is t,
            jax.block_until_ready((t, 1))[0] is t,
        ],
        "tree": lambda: [
            jax.tree_util.tree_leaves((t, 1))[0] is t,
            str(jax.tree_util.tree_structure(t)),
            jax.tree_util.tree_map(lambda x: x, [t])[0] is t,
        ],
        "jit_takes_it_back": lambda: jax.jit(lambda t, x: (lax.after_all(t), x + 1))(t, 1.0),
        "jit_takes_eager_token": lambda: jax.jit(lambda t: lax.after_all(t, lax.create_token()))(e),
        "jit_identity": lambda: [(r := jax.jit(lambda t: t)(t)), r is t],
        "jit_tree_of_results": lambda: jax.jit(
            lambda x: {"a": lax.create_token(x), "b": [x, lax.create_token()]}
        )(1.0),
        "jit_second_call": lambda: jax.jit(lambda x: (lax.create_token(), x * 2))(2.0),
        "eval_shape": lambda: repr(jax.eval_shape(lambda x: (lax.create_token(), x), 1.0)),
        "jit_eval_shape": lambda: repr(jax.jit(lambda: lax.create_token()).eval_shape()),
        "typeof": lambda: [repr(jax.typeof(t)), str(jax.typeof(t))],
        "device_put": lambda: [(r := jax.device_put(t)), r is t],
        "add_to_array": lambda: ns.jnp.zeros(2) + t,
        "np_asarray": lambda: [(a := ns.np.asarray(t)).dtype.name, a.item() is t],
        "jnp_asarray": lambda: ns.jnp.asarray(t),
        "shape": lambda: t.shape,
    }
    out = {}
    for name, probe in probes.items():
        try:
            out[name] = _show(ns, probe())
        except Exception as err:  # noqa: BLE001 - the error class is the golden value
            out[name] = f"error: {type(err).__name__}"
    return out


if __name__ == "__main__":
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from dot_algorithms_gen import generate
    from jax import lax

    generate("cases_tokens", OUT)
    # The objects' records go after the cases, one per line as they are.
    got = objects(types.SimpleNamespace(jax=jax, lax=lax, jnp=jnp, np=np))
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(got.items())]
    text = OUT.read_text().rstrip()
    assert text.endswith("}}")
    OUT.write_text(text[:-1] + ',\n"objects": {\n' + ",\n".join(lines) + "\n}}\n")
