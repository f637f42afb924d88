"""The grad family: grad, value_and_grad, vjp, jvp, linearize, jacfwd, jacrev, hessian.

Reverse mode is linearize then transpose (``interpreters/ad.py``): the forward pass computes the
primal values eagerly (or under the enclosing trace) and records the tangent computation as a
linear jaxpr, which ``backward_pass`` transposes.

>>> import spmd, spmd.numpy as jnp
>>> spmd.grad(lambda x: jnp.sum(x ** 2))(jnp.arange(3.0))
Array([0., 2., 4.], dtype=float32)
"""

from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, vjp_object
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.core_printing import typed_str
from spmd._src.interpreters import ad, sharding_rules
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax import refs
from spmd._src.lax import rules as lax_rules
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy.util import to_array
from spmd._src.sharding import P
from spmd._src.vmap import vmap


def _fun_name(fun: Callable) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _ensure_index_tuple(argnums: int | Sequence[int]) -> tuple[int, ...]:
    if isinstance(argnums, int):
        return (argnums,)
    return tuple(operator.index(i) for i in argnums)


def _check_argnums(name: str, fun: Callable, argnums: tuple[int, ...], nargs: int) -> None:
    for i in argnums:
        if not -nargs <= i < nargs:
            raise TypeError(
                f"{name}({_fun_name(fun)}): argnums={argnums if len(argnums) > 1 else argnums[0]}"
                f" refers to positional argument {i}, but the function was called with only "
                f"{nargs} positional argument{'s' if nargs != 1 else ''}."
            )


def _instantiate_ct(ct: Any, aval: core.ShapedArray) -> Any:
    if type(ct) is Zero:
        return lax_rules.zeros_like_aval(ct.aval)
    return ct


def _as_value(x: Any) -> Any:
    """Python scalars and NumPy values become Arrays (tracers pass through)."""
    if isinstance(x, (core.Tracer, Array)):
        return x
    if type(x) is float:
        # A Python float stays one in the linear program (a literal, not a residual), as JAX's.
        return core.with_literal_text(to_array(x), repr(x))
    return to_array(x)


# ---------------------------------------------------------------------------------------------
# vjp / linearize / jvp


def _linearize(fun: Callable, primals: tuple, has_aux: bool, who: str):
    """Linearize ``fun`` at ``primals``. Auxiliary outputs ride along as extra outputs of the
    traced function, so they come back as primal values (not tracers of the dead trace)."""
    leaves, in_tree = tu.tree_flatten(primals)
    leaves = [_as_value(x) for x in leaves]
    box = {}

    def flat_fun(*flat):
        out = fun(*tu.tree_unflatten(in_tree, flat))
        aux_leaves = []
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(
                    f"{who}({_fun_name(fun)}, has_aux=True) requires the function to return a "
                    f"pair (output, aux), got {type(out).__name__}"
                )
            out, aux = out
            aux_all, box["aux_tree"] = tu.tree_flatten(aux)
            # Traced aux leaves leave the trace as outputs; the others (a string, a Python
            # number) come back as they are, as JAX's do.
            traced = [isinstance(x, core.Tracer) for x in aux_all]
            box["aux_static"] = [None if t else x for x, t in zip(aux_all, traced)]
            aux_leaves = [x for x, t in zip(aux_all, traced) if t]
        out_leaves, box["out_tree"] = tu.tree_flatten(out)
        box["n_out"] = len(out_leaves)
        return out_leaves + aux_leaves

    outs, linear = ad.linearize_flat(flat_fun, leaves)
    n_out = box["n_out"]
    aux = None
    if has_aux:
        got = iter(outs[n_out:])
        leaves_aux = [next(got) if x is None else x for x in box["aux_static"]]
        aux = tu.tree_unflatten(box["aux_tree"], leaves_aux)
    return leaves, in_tree, outs[:n_out], box["out_tree"], aux, linear


class _VjpStatic:
    """What a VJP function knows besides its residuals: the linear map's program, the
    arguments' and results' types and tree structures."""

    def __init__(self, linear, in_avals, in_tree, out_tree, out_primals, n_aux) -> None:
        self.linear = linear
        self.in_avals = in_avals
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.out_avals = [ad.tangent_aval(core.get_aval(p)) for p in out_primals]
        # The results' shardings in types (Explicit mesh axes): a cotangent must have them too.
        self.out_types = [sharding_rules.type_sharding(p) for p in out_primals]
        self.n_aux = n_aux


def _inputs_first(linear: ad.LinearFunction, leaves: list) -> ad.LinearFunction:
    """``linear`` with the residuals that are the primal inputs first (in their order), then
    the others as they were made: the order of the leaves of JAX's VJP function."""
    closed = linear.jaxpr
    j = closed.jaxpr
    pos: dict[int, int] = {}
    for i, x in enumerate(leaves):
        pos.setdefault(id(x), i)  # (a value passed twice: where it is first)
    order = sorted(
        range(len(j.constvars)),
        key=lambda k: (0, pos[id(closed.consts[k])]) if id(closed.consts[k]) in pos else (1, k),
    )
    if order == list(range(len(order))):
        return linear
    jaxpr = core.Jaxpr([j.constvars[k] for k in order], j.invars, j.outvars, j.eqns, j.debug_info)
    out = copy.copy(linear)
    out.jaxpr = core.ClosedJaxpr(jaxpr, [closed.consts[k] for k in order])
    return out


def _vjp_pullback(
    static: _VjpStatic, residuals: list, *cts: Any, unwanted: Sequence[bool] = ()
) -> tuple[Any, ...]:
    """The arguments' cotangents for the results' ``cts`` (``unwanted``: one flag per argument
    leaf whose cotangent is not computed; it comes back as None)."""
    ct = cts[0] if len(cts) == 1 else cts
    ct_leaves, ct_tree = tu.tree_flatten(ct)
    out_tree = static.out_tree
    if ct_tree != out_tree:
        raise ValueError(
            "vjp: unexpected tree structure of the cotangent: the argument to the VJP "
            "function must have the structure of the differentiated function's output, "
            f"{out_tree}, but got {ct_tree}."
        )
    for c, pa, ps in zip(ct_leaves, static.out_avals, static.out_types):
        ca = core.get_aval(c)
        cs = sharding_rules.type_sharding(c)
        if (ps is not None or cs is not None) and _typed_dims(ps, pa) != _typed_dims(cs, ca):
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{typed_str(ca, cs, False)}, but expected {typed_str(pa, ps, False)} because "
                "the corresponding output of the differentiated function had JAX type "
                f"{typed_str(pa, ps, False)}"
            )
        if ca.shape != pa.shape or ca.dtype != pa.dtype:
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{ca.dtype.name}[{','.join(map(str, ca.shape))}], but expected "
                f"{pa.dtype.name}[{','.join(map(str, pa.shape))}] because the corresponding "
                "output of the function had that type."
            )
        if getattr(ca, "memory_space", None) is not getattr(pa, "memory_space", None):
            # A result in host memory (f32<host>[]) wants its cotangent there too: grad's
            # seed is on the device, so grad of such a function fails, as JAX's does.
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{ca.str_short(False)}, but expected {pa.str_short(False)} because the "
                "corresponding output of the differentiated function had JAX type "
                f"{pa.str_short(False)}"
            )
    linear = copy.copy(static.linear)  # with these residuals (flattened and rebuilt: others)
    linear.jaxpr = core.ClosedJaxpr(linear.jaxpr.jaxpr, list(residuals))
    n_out = len(static.out_avals)
    zeros = [Zero(a) for a in linear.out_avals[n_out:]]
    ct_in = linear.transpose(
        [_as_value(c) for c in ct_leaves] + zeros[: static.n_aux], unwanted=unwanted
    )
    ct_in = [
        None if u else _instantiate_ct(c, a)
        for c, a, u in zip(ct_in, static.in_avals, list(unwanted) or [False] * len(ct_in))
    ]
    return tu.tree_unflatten(static.in_tree, ct_in)


def _typed_like(basis: Any, y: Any) -> Any:
    """A basis of cotangents for the result ``y`` (stacked along a leading dimension) sharded
    as ``y``'s type is, as the VJP function wants its cotangents."""
    s = sharding_rules.type_sharding(y)
    if s is None:
        return basis
    from spmd._src.lax.sharding import reshard  # lazy: lax.sharding sits above autodiff

    return reshard(basis, s.with_spec(P(None, *s.spec._normalized(np.ndim(y)))))


def _typed_dims(sharding: Any, aval: Any) -> tuple:
    """The Explicit mesh axes sharding each dimension of a value of type ``aval``."""
    if sharding is None:
        return ((),) * len(aval.shape)
    explicit = {a for a, t in zip(sharding.mesh.axis_names, sharding.mesh.axis_types)
                if t.name == "Explicit"}  # fmt: skip
    return tuple(
        tuple(a for a in sharding_rules.spec_axes(e) if a in explicit)
        for e in sharding.spec._normalized(len(aval.shape))
    )


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """The outputs of ``fun`` and a function mapping output cotangents to input cotangents.

    >>> y, f_vjp = spmd.vjp(jnp.sin, 0.5)
    >>> f_vjp(1.0)
    (Array(0.87758255, dtype=float32, weak_type=True),)
    """
    leaves, in_tree, out_primals, out_tree, aux, linear = _linearize(fun, primals, has_aux, "vjp")
    in_avals = [core.get_aval(x) for x in leaves]
    n_aux = len(linear.out_avals) - len(out_primals)
    linear = _inputs_first(linear, leaves)
    static = _VjpStatic(linear, in_avals, in_tree, out_tree, out_primals, n_aux)
    # A pytree, as JAX's: its leaves are the residuals (the linear map's constants), so it
    # can be passed through jit or flattened and rebuilt around other values.
    pullback = functools.partial(_vjp_pullback, static)
    vjp_fun = vjp_object.make_vjp(pullback, primals, leaves, list(linear.jaxpr.consts))
    out = tu.tree_unflatten(out_tree, out_primals)
    if has_aux:
        return out, vjp_fun, aux
    return out, vjp_fun


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """The outputs of ``fun`` and its JVP at ``primals`` as a function of tangents."""
    _, in_tree, out_primals, out_tree, aux, linear = _linearize(fun, primals, has_aux, "linearize")
    n_out = len(out_primals)

    def f_jvp(*tangents):
        t_leaves, t_tree = tu.tree_flatten(tangents)
        if t_tree != in_tree:
            raise ValueError(f"linearize: tangents have structure {t_tree}, primals {in_tree}")
        outs = linear.jvp([_as_value(t) for t in t_leaves])[:n_out]
        outs = [_instantiate_ct(t, None) for t in outs]
        return tu.tree_unflatten(out_tree, outs)

    out = tu.tree_unflatten(out_tree, out_primals)
    if has_aux:
        return out, f_jvp, aux
    return out, f_jvp


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False):
    """Forward mode: ``(fun(*primals), d fun(primals)[tangents])``.

    >>> spmd.jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    p_leaves, p_tree = tu.tree_flatten(tuple(primals))
    t_leaves, t_tree = tu.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError(
            "primal and tangent arguments to jvp must have the same tree structure; primals "
            f"have tree structure {p_tree} whereas tangents have tree structure {t_tree}."
        )
    p_leaves = [_as_value(x) for x in p_leaves]
    t_leaves = [_as_value(x) for x in t_leaves]
    for p, t in zip(p_leaves, t_leaves):
        pa, ta = core.get_aval(p), core.get_aval(t)
        want = ad.tangent_dtype(pa.dtype)
        if pa.shape != ta.shape:
            raise ValueError(
                "jvp called with different primal and tangent shapes; got primal shape "
                f"{pa.shape} and tangent shape as {ta.shape}"
            )
        if ta.dtype != want:
            raise TypeError(
                "primal and tangent arguments to jvp do not match; dtypes must be equal, or in "
                f"case of int/bool primal dtype the tangent dtype must be float0. Got primal "
                f"dtype {pa.dtype.name} and so expected tangent dtype {want.name}, but got "
                f"tangent dtype {ta.dtype.name} instead."
            )
    box = {}

    def flat_fun(*flat):
        out = fun(*tu.tree_unflatten(p_tree, flat))
        aux_leaves = []
        if has_aux:
            out, aux = out
            # Auxiliary values come out as extra outputs: their primal values, not tracers.
            aux_leaves, box["aux_tree"] = tu.tree_flatten(aux)
        out_leaves, box["out_tree"] = tu.tree_flatten(out)
        box["n_out"] = len(out_leaves)
        return out_leaves + aux_leaves

    tangents_in = [
        Zero(ad.tangent_aval(core.get_aval(t))) if _is_float0(t) else t for t in t_leaves
    ]
    outs, out_t = ad.jvp_flat(flat_fun, p_leaves, tangents_in)
    n = box["n_out"]
    out_t = [_instantiate_ct(t, None) for t in out_t[:n]]
    out_tree = box["out_tree"]
    result = (tu.tree_unflatten(out_tree, outs[:n]), tu.tree_unflatten(out_tree, out_t))
    if has_aux:
        return (*result, tu.tree_unflatten(box["aux_tree"], outs[n:]))
    return result


def _is_float0(x: Any) -> bool:
    return getattr(x, "dtype", None) == dtypes.float0


# ---------------------------------------------------------------------------------------------
# grad / value_and_grad


def _check_input_dtype(name: str, x: Any, allow_int: bool, holomorphic: bool) -> None:
    if refs.is_ref(x):  # (JAX refuses it too, as a ValueError: no cotangent type fits)
        raise ValueError(
            f"{name} cannot differentiate with respect to a mutable array reference (of type "
            f"{core.get_aval(x).str_short(False)}); pass its value (r[...]) instead"
        )
    dt = core.get_aval(x).dtype
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError(
                f"{name} with holomorphic=True requires inputs with complex dtype, but got "
                f"{dt.name}."
            )
        return
    if dtypes.issubdtype(dt, np.complexfloating) or dtypes.issubdtype(dt, np.floating):
        return
    if allow_int and (dtypes.issubdtype(dt, np.integer) or dt == np.bool_):
        return
    raise TypeError(
        f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        f"np.inexact), but got {dt.name}. If you want to use Boolean- or integer-valued inputs, "
        "use vjp or set allow_int to True."
    )


def _check_scalar_output(name: str, fun: Callable, x: Any, holomorphic: bool = False) -> None:
    if isinstance(x, str):
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type")
    if not core.valid_jaxtype(x):
        # A container (tuple, list, dict) or None: JAX names the output as it came back.
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output was {x!r}. ({name} of "
            f"{_fun_name(fun)}; use vjp or jacrev for non-scalar outputs, or has_aux=True for "
            "an (output, aux) pair.)"
        )
    aval = core.get_aval(x)
    if aval.shape != ():
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output had shape: "
            f"{aval.shape}. ({name} of {_fun_name(fun)}; use vjp or jacrev for non-scalar "
            "outputs.)"
        )
    if not dtypes.issubdtype(aval.dtype, np.floating) and not (
        holomorphic and dtypes.issubdtype(aval.dtype, np.complexfloating)
    ):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {aval.dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use jax.vjp directly."
        )


def value_and_grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence = (),
) -> Callable:
    """``fun`` and its gradient with respect to the ``argnums`` arguments, in one pass.

    >>> spmd.value_and_grad(lambda x: x ** 2)(3.0)
    (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
    """
    return _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, "value_and_grad")


def _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, name):
    argnums_t = _ensure_index_tuple(argnums)

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        _check_argnums(name, fun, argnums_t, len(args))
        nums = [i % len(args) for i in argnums_t]
        dyn = [args[i] for i in nums]
        for a in dyn:
            for leaf in tu.tree_leaves(a):
                _check_input_dtype(name, leaf, allow_int, holomorphic)

        def f_partial(*dyn_args):
            full = list(args)
            for i, a in zip(nums, dyn_args):
                full[i] = a
            return fun(*full, **kwargs)

        if has_aux:
            ans, f_vjp, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            ans, f_vjp = vjp(f_partial, *dyn)
        _check_scalar_output(name, fun, ans, holomorphic)
        aval = core.get_aval(ans)
        one = _seed(ans, core.make_concrete(np.ones((), aval.dtype), aval.weak_type))
        g = f_vjp(one)
        g = g[0] if isinstance(argnums, int) else tuple(g)
        if has_aux:
            return (ans, aux), g
        return ans, g

    return value_and_grad_f


def _seed(ans: Any, one: Any) -> Any:
    """grad's cotangent seed ``one``, resharded to ``ans``'s sharding in type when ``ans`` has
    one (Explicit mesh axes, or an Explicit mesh in context), as JAX's grad starts its
    backward pass with a ``reshard``."""
    from spmd._src.interpreters import sharding_rules
    from spmd._src.lax import sharding as lax_sharding
    from spmd._src.mesh import get_abstract_mesh, get_mesh
    from spmd._src.sharding import NamedSharding, PartitionSpec

    target = sharding_rules.type_sharding(ans)
    if target is None:
        mesh = get_mesh()
        if mesh is None or not any(t.name == "Explicit" for t in get_abstract_mesh().axis_types):
            return one
        target = NamedSharding(mesh, PartitionSpec())
    return lax_sharding.reshard(one, target)


def grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence = (),
) -> Callable:
    """The gradient of scalar-valued ``fun`` with respect to the ``argnums`` arguments.

    >>> spmd.grad(lambda x: x ** 3)(2.0)
    Array(12., dtype=float32, weak_type=True)
    """
    vg = _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, "grad")

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]

    return grad_f


# ---------------------------------------------------------------------------------------------
# Jacobians and Hessians


def _std_basis(leaves: Sequence[Any]) -> list[Any]:
    """One-hot tangents for ``leaves``, stacked along a leading axis: the rows of an identity of
    their total size, split into each leaf's columns, shaped ``(total, *leaf.shape)`` and cast
    to the leaf's type. Built in the program (iota, split, reshape, convert) as JAX builds it,
    so Jacobian programs print alike."""
    from spmd._src.numpy.creation import eye  # lazy: the numpy layer imports this module

    sizes = [int(np.prod(np.shape(x), dtype=np.int64)) for x in leaves]
    total = sum(sizes)
    parts = lax_shape.split(eye(total, dtype=dtypes.result_type(*leaves)), sizes, 1)
    out = []
    for part, x in zip(parts, leaves):
        a = core.get_aval(x)
        if tuple(np.shape(part)) != (total, *a.shape):
            part = lax_shape.reshape(part, (total, *a.shape))
        out.append(
            lax_ew.convert_element_type_p.bind(
                part, new_dtype=a.dtype, weak_type=a.weak_type, sharding=None
            )
        )
    return out


def _unravel(arr: Any, leaves: Sequence[Any], axis: int, example: Any) -> list[Any]:
    """Split ``arr``'s ``axis`` into the leaves' flattened sizes, each part shaped with the
    leaf's shape in place of that axis and cast to ``example``'s type where it differs."""
    shape = tuple(np.shape(arr))
    sizes = [int(np.prod(np.shape(x), dtype=np.int64)) for x in leaves]
    want = core.get_aval(example)
    out = []
    for part, x in zip(lax_shape.split(arr, sizes, axis), leaves):
        target = shape[:axis] + tuple(np.shape(x)) + shape[axis + 1 :]
        if tuple(np.shape(part)) != target:
            part = lax_shape.reshape(part, target)
        a = core.get_aval(part)
        if (a.dtype, a.weak_type) != (want.dtype, want.weak_type):
            part = lax_ew.convert_element_type(part, want.dtype, weak_type=want.weak_type)
        out.append(part)
    return out


def _flat_argnums(name, fun, args, kwargs, argnums_t, allow_int, holomorphic):
    """The flattened differentiated arguments and ``fun`` as a function of just those."""
    _check_argnums(name, fun, argnums_t, len(args))
    nums = [i % len(args) for i in argnums_t]
    dyn = tuple(args[i] for i in nums)
    for a in dyn:
        for leaf in tu.tree_leaves(a):
            _check_input_dtype(name, leaf, allow_int, holomorphic)
    in_leaves, in_tree = tu.tree_flatten(dyn)
    in_leaves = [_as_value(x) for x in in_leaves]

    def f_partial(*flat):
        full = list(args)
        for i, a in zip(nums, tu.tree_unflatten(in_tree, flat)):
            full[i] = a
        return fun(*full, **kwargs)

    return in_leaves, in_tree, f_partial


def jacfwd(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """Jacobian of ``fun`` by forward mode (a vmap of jvp over the input basis).

    >>> spmd.jacfwd(lambda x: x ** 2)(jnp.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    argnums_t = _ensure_index_tuple(argnums)

    def jac_f(*args, **kwargs):
        in_leaves, in_tree, f_partial = _flat_argnums(
            "jacfwd", fun, args, kwargs, argnums_t, False, holomorphic
        )

        def push(*basis):
            # The primal output does not depend on the basis: it comes back unbatched, once.
            return jvp(f_partial, tuple(in_leaves), tuple(basis), has_aux=has_aux)

        basis = _std_basis(in_leaves)
        out_axes = (None, -1, None) if has_aux else (None, -1)
        res = vmap(push, out_axes=out_axes)(*basis)
        out, tangents = res[0], res[1]
        out_leaves, out_tree = tu.tree_flatten(out)
        t_leaves = tu.tree_leaves(tangents)
        jac_leaves = []
        for o, t in zip(out_leaves, t_leaves):
            parts = _unravel(t, in_leaves, np.ndim(t) - 1, o)
            jac_leaves.append(_pack(parts, in_tree, argnums))
        jac = tu.tree_unflatten(out_tree, jac_leaves)
        return (jac, res[2]) if has_aux else jac

    return jac_f


def jacrev(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable:
    """Jacobian of ``fun`` by reverse mode (a vmap of vjp over the output basis).

    >>> spmd.jacrev(lambda x: x ** 2)(jnp.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    argnums_t = _ensure_index_tuple(argnums)

    def jac_f(*args, **kwargs):
        in_leaves, in_tree, f_partial = _flat_argnums(
            "jacrev", fun, args, kwargs, argnums_t, allow_int, holomorphic
        )

        if has_aux:
            out, f_vjp, aux = vjp(f_partial, *in_leaves, has_aux=True)
        else:
            out, f_vjp = vjp(f_partial, *in_leaves)
        out_leaves, out_tree = tu.tree_flatten(out)
        basis = [_typed_like(b, y) for b, y in zip(_std_basis(out_leaves), out_leaves)]

        def pull(*b):
            return f_vjp(tu.tree_unflatten(out_tree, list(b)))

        cts = vmap(pull)(*basis)  # tuple over inputs, each (total_out, *in_shape)
        # Per input, its rows split among the outputs; then regrouped per output.
        per_input = [_unravel(c, out_leaves, 0, x) for c, x in zip(cts, in_leaves)]
        jac_leaves = [_pack(list(parts), in_tree, argnums) for parts in zip(*per_input)]
        jac = tu.tree_unflatten(out_tree, jac_leaves)
        return (jac, aux) if has_aux else jac

    return jac_f


def _pack(parts: list, in_tree, argnums) -> Any:
    tree = tu.tree_unflatten(in_tree, parts)
    return tree[0] if isinstance(argnums, int) else tree


jacobian = jacrev


def hessian(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``.

    >>> spmd.hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0]))
    Array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)
    """
    return jacfwd(
        jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic),
        argnums,
        has_aux=has_aux,
        holomorphic=holomorphic,
    )
