"""Result shardings of eager array creation next to sharded operands, compared with JAX's
(tests/golden/like_sharding.json, written by tests/golden_gen/like_sharding_gen.py).

The ``*_like`` functions of a committed Array take its sharding (unless the new ``shape=`` differs
and the sharding splits something, or the operand is weakly typed); ``device=`` and
``out_sharding=`` choose another. Each case is a function of (jax, jnp, env), written against the
``jax`` module so both sides run it; ``run`` records every result's sharding (kind, spec, mesh,
device), committed flag, dtype, weak type, shape and values, or the error class.
"""

import numpy as np


def make_env(jax):
    """The meshes and operands the cases use (8 devices)."""
    AT = jax.sharding.AxisType
    NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    jnp = jax.numpy
    auto = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AT.Auto,) * 2)
    expl = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AT.Explicit,) * 2)
    base = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    d3 = jax.devices()[3]
    return {
        "auto": auto,
        "expl": expl,
        "NS": NS,
        "P": P,
        "dev3": d3,
        # Auto mesh, split over both axes; over one; replicated
        "xa": jax.device_put(base, NS(auto, P("x", "y"))),
        "xa1": jax.device_put(base, NS(auto, P("x", None))),
        "xar": jax.device_put(base, NS(auto, P())),
        # Explicit mesh (the sharding is in the type)
        "xe": jax.device_put(base, NS(expl, P("x", "y"))),
        "xer": jax.device_put(base, NS(expl, P())),
        # one device: committed (device_put to a device) and not (a fresh array)
        "xd": jax.device_put(base, d3),
        "xu": jnp.asarray(base),
        # weakly typed, split over the mesh
        "xw": jax.device_put(jnp.full((8, 4), 1.5), NS(auto, P("x", "y"))),
        "xi": jax.device_put(base.astype(np.int32), NS(auto, P("x", "y"))),
    }


def _like_cases():
    fns = {
        "zeros_like": lambda jnp, a, **k: jnp.zeros_like(a, **k),
        "ones_like": lambda jnp, a, **k: jnp.ones_like(a, **k),
        "full_like": lambda jnp, a, **k: jnp.full_like(a, 3, **k),
        "empty_like": lambda jnp, a, **k: jnp.empty_like(a, **k),
    }
    cases = {}
    for fname, f in fns.items():

        def add(tag, fn, f=f, fname=fname):
            cases[f"{fname}:{tag}"] = lambda jax, jnp, env: fn(jax, jnp, env, f)

        for x in ["xa", "xa1", "xar", "xe", "xer", "xd", "xu", "xw", "xi"]:
            add(x, lambda jax, jnp, env, f, x=x: f(jnp, env[x]))
        add("xa:dtype", lambda jax, jnp, env, f: f(jnp, env["xa"], dtype=jnp.int32))
        add("xw:dtype", lambda jax, jnp, env, f: f(jnp, env["xw"], dtype=jnp.float32))
        add("xa:same_shape", lambda jax, jnp, env, f: f(jnp, env["xa"], shape=(8, 4)))
        add("xa:shape_4x8", lambda jax, jnp, env, f: f(jnp, env["xa"], shape=(4, 8)))
        add("xa:shape_32", lambda jax, jnp, env, f: f(jnp, env["xa"], shape=(32,)))
        add("xar:shape_2x8x4", lambda jax, jnp, env, f: f(jnp, env["xar"], shape=(2, 8, 4)))
        add("xd:shape_3", lambda jax, jnp, env, f: f(jnp, env["xd"], shape=(3,)))
        add("xe:shape_32", lambda jax, jnp, env, f: f(jnp, env["xe"], shape=(32,)))
        add("xer:shape_3", lambda jax, jnp, env, f: f(jnp, env["xer"], shape=(3,)))
        add("xa:device", lambda jax, jnp, env, f: f(jnp, env["xa"], device=env["dev3"]))
        add(
            "xa:device_sharding",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], device=env["NS"](env["auto"], env["P"](None, "x"))
            ),
        )
        add(
            "xa:out_sharding",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], out_sharding=env["NS"](env["auto"], env["P"]("y", None))
            ),
        )
        add(
            "xu:out_sharding_shape",
            lambda jax, jnp, env, f: f(
                jnp, env["xu"], shape=(4, 8), out_sharding=env["NS"](env["auto"], env["P"]("x"))
            ),
        )
        add(
            "xe:out_sharding_spec",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["expl"], lambda: f(jnp, env["xe"], out_sharding=env["P"](None, "y"))
            ),
        )
        add(
            "xa:out_sharding_explicit_in_mesh",
            lambda jax, jnp, env, f: _in_mesh(
                jax,
                env["expl"],
                lambda: f(jnp, env["xa"], out_sharding=env["NS"](env["expl"], env["P"]("y"))),
            ),
        )
        add(
            "scalar:out_sharding_in_mesh",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["expl"], lambda: f(jnp, 2.0, shape=(4,), out_sharding=env["P"]("y"))
            ),
        )
        add("xd:device5", lambda jax, jnp, env, f: f(jnp, env["xd"], device=jax.devices()[5]))
        add("scalar:device", lambda jax, jnp, env, f: f(jnp, 2.0, device=env["dev3"]))
        add(
            "xw:device_sharding",
            lambda jax, jnp, env, f: f(
                jnp, env["xw"], device=env["NS"](env["auto"], env["P"]("x", "y"))
            ),
        )
        add(
            "err:out_sharding_rank_in_mesh",
            lambda jax, jnp, env, f: _in_mesh(
                jax,
                env["expl"],
                lambda: f(jnp, env["xe"], shape=(32,), out_sharding=env["P"]("x", "y")),
            ),
        )
        add(
            "err:out_sharding_indivisible_in_mesh",
            lambda jax, jnp, env, f: _in_mesh(
                jax,
                env["expl"],
                lambda: f(jnp, env["xe"], shape=(6, 4), out_sharding=env["P"]("y")),
            ),
        )
        add(
            "err:device_rank",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], shape=(32,), device=env["NS"](env["auto"], env["P"]("x", "y"))
            ),
        )
        add(
            "err:device_indivisible",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], shape=(6, 4), device=env["NS"](env["auto"], env["P"]("y"))
            ),
        )
        add("numpy", lambda jax, jnp, env, f: f(jnp, np.ones((3, 2), np.int32)))
        add("scalar", lambda jax, jnp, env, f: f(jnp, 2.0))
        add("jit:xa", lambda jax, jnp, env, f: jax.jit(lambda a: f(jnp, a))(env["xa"]))
        add("jit:xe", lambda jax, jnp, env, f: jax.jit(lambda a: f(jnp, a))(env["xe"]))
        add(
            "jit:xa:shape_32",
            lambda jax, jnp, env, f: jax.jit(lambda a: f(jnp, a, shape=(32,)))(env["xa"]),
        )
        add(
            "set_mesh:xa",
            lambda jax, jnp, env, f: _in_mesh(jax, env["auto"], lambda: f(jnp, env["xa"])),
        )
        add(
            "set_mesh:xu",
            lambda jax, jnp, env, f: _in_mesh(jax, env["auto"], lambda: f(jnp, env["xu"])),
        )
        add(
            "set_mesh:jit:xa",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["auto"], lambda: jax.jit(lambda a: f(jnp, a))(env["xa"])
            ),
        )
        add(
            "set_mesh:jit:xe",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["expl"], lambda: jax.jit(lambda a: f(jnp, a))(env["xe"])
            ),
        )
        add(
            "set_mesh:jit:xe:shape_32",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["expl"], lambda: jax.jit(lambda a: f(jnp, a, shape=(32,)))(env["xe"])
            ),
        )
        add(
            "set_mesh:vmap:xe",
            lambda jax, jnp, env, f: _in_mesh(
                jax, env["expl"], lambda: jax.vmap(lambda a: f(jnp, a))(env["xe"])
            ),
        )
        # grad's zeros (a like-function under a trace) and a pytree of parameters
        add(
            "tree_map",
            lambda jax, jnp, env, f: jax.tree.map(lambda a: f(jnp, a), {"w": env["xa"]})["w"],
        )
        # errors: both device= and out_sharding=; a sharding that does not fit a new shape
        add(
            "err:device_and_out_sharding",
            lambda jax, jnp, env, f: f(
                jnp,
                env["xa"],
                device=env["dev3"],
                out_sharding=env["NS"](env["auto"], env["P"]()),
            ),
        )
        add(
            "err:out_sharding_rank",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], shape=(32,), out_sharding=env["NS"](env["auto"], env["P"]("x", "y"))
            ),
        )
        add(
            "err:out_sharding_indivisible",
            lambda jax, jnp, env, f: f(
                jnp, env["xa"], shape=(6, 4), out_sharding=env["NS"](env["auto"], env["P"]("y"))
            ),
        )
    return cases


def _in_mesh(jax, mesh, thunk):
    with jax.set_mesh(mesh):
        return thunk()


def _other_cases():
    def ns(env, *spec):
        return env["NS"](env["auto"], env["P"](*spec))

    c = {
        # creation with device= / out_sharding=
        "zeros:device": lambda jax, jnp, env: jnp.zeros((8, 4), device=env["dev3"]),
        "zeros:device_sharding": lambda jax, jnp, env: jnp.zeros((8, 4), device=ns(env, "x")),
        "zeros:out_sharding": lambda jax, jnp, env: jnp.zeros((8, 4), out_sharding=ns(env, "y")),
        "ones:out_sharding": lambda jax, jnp, env: jnp.ones((8, 4), out_sharding=ns(env, "x", "y")),
        "full:device": lambda jax, jnp, env: jnp.full((8, 4), 2.0, device=env["dev3"]),
        "full:out_sharding": lambda jax, jnp, env: jnp.full((8,), 2, out_sharding=ns(env, "x")),
        "empty:device": lambda jax, jnp, env: jnp.empty((8, 4), device=env["dev3"]),
        "arange:device": lambda jax, jnp, env: jnp.arange(8.0, device=env["dev3"]),
        "arange:out_sharding": lambda jax, jnp, env: jnp.arange(8, out_sharding=ns(env, "y")),
        "eye:device": lambda jax, jnp, env: jnp.eye(4, device=env["dev3"]),
        "eye:device_sharding": lambda jax, jnp, env: jnp.eye(4, device=ns(env, "y")),
        "linspace:device": lambda jax, jnp, env: jnp.linspace(0.0, 1.0, 8, device=env["dev3"]),
        "linspace:device_sharding": lambda jax, jnp, env: jnp.linspace(
            0.0, 1.0, 8, device=ns(env, "x")
        ),
        "zeros:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["expl"], lambda: jnp.zeros((8, 4), out_sharding=env["P"]("x"))
        ),
        "full:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["expl"], lambda: jnp.full((8,), 2.0, out_sharding=env["P"]("y"))
        ),
        "arange:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["expl"], lambda: jnp.arange(8, out_sharding=env["P"]("x"))
        ),
        "full:device_sharding": lambda jax, jnp, env: jnp.full((8,), 2.0, device=ns(env, "y")),
        "ones:device": lambda jax, jnp, env: jnp.ones((2,), jnp.int32, device=env["dev3"]),
        "eye:device_explicit": lambda jax, jnp, env: jnp.eye(
            4, device=env["NS"](env["expl"], env["P"]("x"))
        ),
        "err:zeros:device_indivisible": lambda jax, jnp, env: jnp.zeros((6,), device=ns(env, "y")),
        "err:zeros:device_rank": lambda jax, jnp, env: jnp.zeros((6,), device=ns(env, "x", "y")),
        "err:arange:device_and_out_sharding": lambda jax, jnp, env: jnp.arange(
            8, device=env["dev3"], out_sharding=ns(env)
        ),
        "err:empty_like:out_sharding": lambda jax, jnp, env: jnp.empty_like(
            env["xe"], out_sharding=env["NS"](env["expl"], env["P"]())
        ),
        "err:eye:out_sharding": lambda jax, jnp, env: jnp.eye(2, out_sharding=ns(env)),
        "err:asarray:xa:device": lambda jax, jnp, env: jnp.asarray(env["xa"], device=env["dev3"]),
        "err:array:xd:device5": lambda jax, jnp, env: jnp.array(env["xd"], device=jax.devices()[5]),
        "array:xd:device3": lambda jax, jnp, env: jnp.array(env["xd"], device=env["dev3"]),
        "asarray:xa:device_sharding": lambda jax, jnp, env: jnp.asarray(
            env["xa"], device=ns(env, "y")
        ),
        "asarray:scalar:device": lambda jax, jnp, env: jnp.asarray(2.0, device=env["dev3"]),
        "astype:xa:device_sharding": lambda jax, jnp, env: jnp.astype(
            env["xa"], jnp.int32, device=ns(env, "y")
        ),
        "astype:xu:device": lambda jax, jnp, env: jnp.astype(
            env["xu"], jnp.int32, device=env["dev3"]
        ),
        "linspace:retstep_device:samples": lambda jax, jnp, env: jnp.linspace(
            0.0, 1.0, 5, retstep=True, device=env["dev3"]
        )[0],
        "linspace:retstep_device:step": lambda jax, jnp, env: jnp.linspace(
            0.0, 1.0, 5, retstep=True, device=env["dev3"]
        )[1],
        "fft.fftfreq:device": lambda jax, jnp, env: jnp.fft.fftfreq(4, device=env["dev3"]),
        "fft.rfftfreq:device_sharding": lambda jax, jnp, env: jnp.fft.rfftfreq(
            14, device=ns(env, "y")
        ),
        "to_device:xu": lambda jax, jnp, env: env["xu"].to_device(env["dev3"]),
        "to_device:xa_sharding": lambda jax, jnp, env: env["xa"].to_device(ns(env, None, "x")),
        # lax.full / lax.full_like: the same rule, and their sharding= argument
        "lax.full_like:xa": lambda jax, jnp, env: jax.lax.full_like(env["xa"], 2.0),
        "lax.full_like:xd": lambda jax, jnp, env: jax.lax.full_like(env["xd"], 2),
        "lax.full_like:xw": lambda jax, jnp, env: jax.lax.full_like(env["xw"], 2.0),
        "lax.full_like:xa:shape": lambda jax, jnp, env: jax.lax.full_like(
            env["xa"], 2.0, shape=(32,)
        ),
        "lax.full_like:xar:shape": lambda jax, jnp, env: jax.lax.full_like(
            env["xar"], 2.0, shape=(3,)
        ),
        "lax.full_like:xa:sharding": lambda jax, jnp, env: jax.lax.full_like(
            env["xa"], 2.0, sharding=ns(env, "y")
        ),
        "lax.full:sharding": lambda jax, jnp, env: jax.lax.full((8,), 2.0, sharding=ns(env, "y")),
        "lax.full:device_sharding": lambda jax, jnp, env: jax.lax.full(
            (8,), 2, sharding=jax.sharding.SingleDeviceSharding(env["dev3"])
        ),
        "lax.full:sharding:jit": lambda jax, jnp, env: jax.jit(
            lambda a: a + jax.lax.full((8, 4), 2.0, sharding=ns(env, "y"))
        )(env["xu"]),
        "zeros:set_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["auto"], lambda: jnp.zeros((8, 4))
        ),
        # out_sharding of eager lax calls on an unplaced operand, and vmap's unbatched results,
        # on an Explicit mesh in context
        "lax.broadcast_in_dim:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax,
            env["expl"],
            lambda: jax.lax.broadcast_in_dim(
                jnp.ones(4), (8, 4), (1,), out_sharding=env["P"]("x", None)
            ),
        ),
        "lax.reshape:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax,
            env["expl"],
            lambda: jax.lax.reshape(jnp.ones(32), (8, 4), out_sharding=env["P"](None, "y")),
        ),
        "vmap:constant_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["expl"], lambda: jax.vmap(lambda r: jnp.ones(3))(env["xe"])
        ),
        "vmap:python_scalar_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax, env["expl"], lambda: jax.vmap(lambda r: (r, 2.0))(env["xe"])[1]
        ),
        "err:zeros:device_and_out_sharding": lambda jax, jnp, env: jnp.zeros(
            (8, 4), device=env["dev3"], out_sharding=ns(env)
        ),
        "err:zeros:out_sharding_indivisible": lambda jax, jnp, env: jnp.zeros(
            (6,), out_sharding=ns(env, "y")
        ),
        # conversions and copies of sharded arrays
        "array:xa": lambda jax, jnp, env: jnp.array(env["xa"]),
        "array:xd": lambda jax, jnp, env: jnp.array(env["xd"]),
        "err:array:xa:device": lambda jax, jnp, env: jnp.array(env["xa"], device=env["dev3"]),
        "asarray:xa": lambda jax, jnp, env: jnp.asarray(env["xa"]),
        "asarray:xa:dtype": lambda jax, jnp, env: jnp.asarray(env["xa"], dtype=jnp.int32),
        "asarray:xa:out_sharding": lambda jax, jnp, env: jnp.asarray(
            env["xa"], out_sharding=ns(env, "y")
        ),
        "asarray:numpy:device": lambda jax, jnp, env: jnp.asarray(np.ones(4), device=env["dev3"]),
        "copy:xa": lambda jax, jnp, env: jnp.copy(env["xa"]),
        "copy:xd": lambda jax, jnp, env: jnp.copy(env["xd"]),
        "method_copy:xa": lambda jax, jnp, env: env["xa"].copy(),
        "astype:xa": lambda jax, jnp, env: jnp.astype(env["xa"], jnp.int32),
        "err:astype:xa:device": lambda jax, jnp, env: jnp.astype(
            env["xa"], jnp.int32, device=env["dev3"]
        ),
        "astype:xd": lambda jax, jnp, env: jnp.astype(env["xd"], jnp.int32),
        # random with out_sharding=
        "random.normal:out_sharding": lambda jax, jnp, env: jax.random.normal(
            jax.random.key(0), (8, 4), out_sharding=ns(env, "x", "y")
        ),
        "random.uniform:out_sharding": lambda jax, jnp, env: jax.random.uniform(
            jax.random.key(1), (8,), out_sharding=ns(env, "y")
        ),
        "random.bits:out_sharding": lambda jax, jnp, env: jax.random.bits(
            jax.random.key(2), (8,), out_sharding=ns(env, "x")
        ),
        "random.randint:out_sharding": lambda jax, jnp, env: jax.random.randint(
            jax.random.key(3), (8, 4), 0, 10, out_sharding=ns(env, None, "y")
        ),
        "random.normal:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax,
            env["expl"],
            lambda: jax.random.normal(jax.random.key(0), (8, 4), out_sharding=env["P"]("x", "y")),
        ),
        "random.uniform:out_sharding_in_mesh": lambda jax, jnp, env: _in_mesh(
            jax,
            env["expl"],
            lambda: jax.random.uniform(jax.random.key(1), (8,), out_sharding=env["P"]("y")),
        ),
        "random.normal:plain": lambda jax, jnp, env: jax.random.normal(jax.random.key(0), (8,)),
        # ops combining sharded arrays
        "where:xa": lambda jax, jnp, env: jnp.where(env["xa"] > 3, env["xa"], 0.0),
        "where:xa_xd": lambda jax, jnp, env: jnp.where(env["xu"] > 3, env["xa"], 0.0),
        "concatenate:xa0": lambda jax, jnp, env: jnp.concatenate([env["xa"], env["xa"]]),
        "concatenate:xa1": lambda jax, jnp, env: jnp.concatenate([env["xa"], env["xa"]], axis=1),
        "concatenate:xa_xu": lambda jax, jnp, env: jnp.concatenate([env["xa"], env["xu"]]),
        "stack:xa": lambda jax, jnp, env: jnp.stack([env["xa"], env["xa"]]),
        "at_set:xa": lambda jax, jnp, env: env["xa"].at[0].set(1.0),
        "at_add:xa": lambda jax, jnp, env: env["xa"].at[:, 1].add(1.0),
        "at_set:xd": lambda jax, jnp, env: env["xd"].at[0].set(1.0),
        # one-device placement carries through operations (eager and jit alike)
        "add:xd": lambda jax, jnp, env: env["xd"] + 1.0,
        "add:xd_xu": lambda jax, jnp, env: env["xd"] * env["xu"],
        "sum:xd": lambda jax, jnp, env: env["xd"].sum(0),
        "jit_add:xd": lambda jax, jnp, env: jax.jit(lambda a: a + 1.0)(env["xd"]),
        "err:add:xd_xd5": lambda jax, jnp, env: (
            env["xd"] + jax.device_put(np.ones((8, 4), np.float32), jax.devices()[5])
        ),
        "zeros_like_then_add:xa": lambda jax, jnp, env: jnp.zeros_like(env["xa"]) + env["xu"],
    }
    return c


CASES = {**_like_cases(), **_other_cases()}


def _spec_json(spec):
    return [list(e) if isinstance(e, tuple) else e for e in spec]


def record(jax, r):
    """A JSON description of an eager result: its sharding, committed flag and value."""
    s = r.sharding
    out = {"kind": type(s).__name__}
    if isinstance(s, jax.sharding.NamedSharding):
        m = s.mesh
        out["spec"] = _spec_json(s.spec)
        out["mesh"] = [list(m.axis_names), [int(n) for n in m.devices.shape]]
        out["axis_types"] = [str(t).rsplit(".", 1)[-1] for t in m.axis_types]
    else:
        out["devices"] = sorted(d.id for d in s.device_set)
    out["committed"] = bool(r.committed)
    out["dtype"] = str(r.dtype)
    out["weak_type"] = bool(getattr(r, "weak_type", False))
    out["shape"] = list(r.shape)
    out["value"] = np.asarray(r).tolist()
    return out


def run(jax, names=None):
    env = make_env(jax)
    out = {}
    for name in names or CASES:
        try:
            out[name] = record(jax, CASES[name](jax, jax.numpy, env))
        except Exception as e:  # noqa: BLE001 -- the error class is the result
            classes = [c.__name__ for c in type(e).__mro__]
            out[name] = {"error": type(e).__name__, "classes": classes, "message": str(e)}
    return out
