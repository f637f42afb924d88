"""Imports inside ``spmd`` only point down the layer order of DESIGN.md.

Every module under ``spmd/`` is parsed with ``ast`` (nothing is imported) and each import of an
``spmd`` module is checked against the layer table below: a module may import modules of its own
layer or of lower layers, never of a higher one. Relative imports are resolved first, and
``from pkg import name`` counts as importing ``pkg.name`` when that is a module.

Imports inside functions (lazy imports) count too. The one escape: an import inside a function, or
under ``if TYPE_CHECKING:``, may point up when one of its lines carries a comment
``# lazy: <reason>``, e.g.::

    def device_put(x):
        from spmd._src.array import Array  # lazy: core builds arrays only on request

A module under ``spmd._src`` that the table does not list is put in layer 6 and reported, so the
table can be updated.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import pytest

PKG_ROOT = Path(__file__).resolve().parent.parent / "spmd"

# Layer number -> module patterns; "x.*" matches x and everything under it.
LAYERS: dict[int, list[str]] = {
    1: [
        "spmd._src",
        "spmd._src.util",
        "spmd._src.config",
        "spmd._src.tree_util",
        "spmd._src.tree_util_public",
        "spmd._src.tree_util_paths",
        "spmd._src.tree_util_prefix",
        "spmd._src.tree_util_registry",
        "spmd._src.dtypes",
        "spmd._src.pretty_printer",
        "spmd._src.errors",
        "spmd._src.key_arrays",
        "spmd._src.source_info",
    ],
    2: [
        "spmd._src.core",
        "spmd._src.core_printing",
        "spmd._src.leak_check",
        "spmd._src.memory_spaces",
        "spmd._src.devices",
        "spmd._src.mesh",
        "spmd._src.sharding",
        "spmd._src.backends.*",
    ],
    3: ["spmd._src.interpreters.*", "spmd._src.tracer_printing"],
    4: ["spmd._src.lax.*"],
    5: [
        "spmd._src.array",
        "spmd._src.global_array",
        "spmd._src.dispatch",
        "spmd._src.program_passes",
        "spmd._src.debug_floats",
        "spmd._src.compile_log",
        "spmd._src.profiler",
    ],
    6: [
        "spmd._src.api",
        "spmd._src.shape_dtype_struct",
        "spmd._src.api_trace",
        "spmd._src.ad_checkpoint",
        "spmd._src.jit_placement",
        "spmd._src.vmap",
        "spmd._src.autodiff",
        "spmd._src.vjp_object",
        "spmd._src.custom_derivatives.*",
        "spmd._src.custom_batching",
        "spmd._src.placement",
        "spmd._src.scipy.*",
        "spmd._src.test_util",
        "spmd._src.debugging",
        "spmd._src.debugger",
        "spmd._src.shard_map",
        "spmd._src.lowering",
        "spmd._src.compiled_call",
        "spmd._src.shard_map_autodiff",
        "spmd._src.shard_map_check",
        "spmd._src.shard_map_reference",
        "spmd._src.shard_map_unreduced",
        "spmd._src.pmap",
        "spmd._src.checkify",
        "spmd._src.donation",
        "spmd._src.flatten_util",
        "spmd._src.ode",
        "spmd._src.compute_on",
        "spmd._src.shard_alike",
        "spmd._src.numpy.*",
        "spmd._src.random",
        "spmd._src.random_keys",
        "spmd._src.random_gamma",
        "spmd._src.random_counting",
        "spmd._src.random_more",
        "spmd._src.nn.*",
        "spmd._src.linear_transpose",
        "spmd._src.fwd_and_bwd",
        "spmd._src.api_misc",
        "spmd._src.mesh_utils",
        "spmd._src.ops",
        "spmd._src.image",
        "spmd._src.distributed",
        "spmd._src.multihost_utils",
        "spmd._src.multiprocess",
        "spmd._src.launcher",
        "spmd._src.refs",
        "spmd._src.refs_discharge",
    ],
}
PUBLIC_LAYER = 7
UNMAPPED_LAYER = 6

_LAZY_COMMENT = re.compile(r"#\s*lazy:\s*\S")


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        base = pattern[:-2]
        return module == base or module.startswith(base + ".")
    return module == pattern


def layer_of(module: str) -> tuple[int, bool]:
    """(layer, mapped) of an ``spmd`` module name."""
    if module != "spmd._src" and not module.startswith("spmd._src."):
        return PUBLIC_LAYER, True
    for layer, patterns in LAYERS.items():
        if any(_matches(module, p) for p in patterns):
            return layer, True
    return UNMAPPED_LAYER, False


def module_name(path: Path, root: Path = PKG_ROOT) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(root: Path = PKG_ROOT) -> dict[str, Path]:
    return {
        module_name(p, root): p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts
    }


def _resolve_relative(importer: str, is_package: bool, level: int, module: str | None) -> str:
    package = importer if is_package else importer.rpartition(".")[0]
    parts = package.split(".")
    if level - 1 > len(parts) - 1:
        raise ValueError(f"{importer}: relative import beyond the top-level package")
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{module}" if module else base


class _ImportVisitor(ast.NodeVisitor):
    """Collects (target module, line, end line, lazy) for each import of an spmd module."""

    def __init__(self, importer: str, is_package: bool, known: set[str]):
        self.importer, self.is_package, self.known = importer, is_package, known
        self.depth = 0  # > 0 inside a function body or an `if TYPE_CHECKING:` block
        self.found: list[tuple[str, int, int, bool]] = []

    def _add(self, target: str, node: ast.stmt) -> None:
        if target == "spmd" or target.startswith("spmd."):
            end = getattr(node, "end_lineno", None) or node.lineno
            self.found.append((target, node.lineno, end, self.depth > 0))

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        is_tc = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        if not is_tc:
            self.generic_visit(node)
            return
        self.depth += 1
        for stmt in node.body:
            self.visit(stmt)
        self.depth -= 1
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = _resolve_relative(self.importer, self.is_package, node.level, node.module)
        else:
            base = node.module or ""
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod.
            self._add(sub if sub in self.known else base, node)


def check_imports(
    importer: str, source: str, *, is_package: bool = False, known: set[str] | None = None
) -> tuple[list[str], list[str]]:
    """Check one module's imports against the layer table.

    Returns ``(violations, unmapped)``: messages for imports that point up, and names of
    ``spmd._src`` modules (the importer or an imported one) missing from the table.
    """
    known = set(known or ())
    tree = ast.parse(source)
    visitor = _ImportVisitor(importer, is_package, known)
    visitor.visit(tree)
    lines = source.splitlines()
    src_layer, src_mapped = layer_of(importer)
    unmapped = [] if src_mapped else [importer]
    violations = []
    for target, line, end, lazy in visitor.found:
        dst_layer, dst_mapped = layer_of(target)
        if not dst_mapped:
            unmapped.append(target)
        if dst_layer <= src_layer:
            continue
        if lazy and any(_LAZY_COMMENT.search(text) for text in lines[line - 1 : end]):
            continue
        where = "function-level " if lazy else ""
        violations.append(
            f"{importer} (layer {src_layer}) line {line}: {where}import of {target} "
            f"(layer {dst_layer}) points up the layer order"
            + (" (add '# lazy: <reason>' if this lazy import is intended)" if lazy else "")
        )
    return violations, unmapped


MODULES = all_modules()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down(name: str) -> None:
    path = MODULES[name]
    violations, unmapped = check_imports(
        name,
        path.read_text(encoding="utf-8"),
        is_package=path.name == "__init__.py",
        known=set(MODULES),
    )
    for mod in sorted(set(unmapped)):
        msg = (
            f"{mod} is not in the layer table of tests/test_layering.py; it is treated as "
            f"layer {UNMAPPED_LAYER}. Add it to LAYERS."
        )
        print(msg)
        warnings.warn(msg, stacklevel=1)
    assert not violations, "\n".join(violations)


def test_tree_util_modules_exist() -> None:
    # Guards against the discovery silently finding nothing (e.g. a moved package root).
    assert "spmd._src.tree_util" in MODULES and "spmd.tree_util" in MODULES


KNOWN = {"spmd._src.core", "spmd._src.api", "spmd._src.array", "spmd._src.util", "spmd.numpy"}


def test_checker_flags_upward_import() -> None:
    bad, _ = check_imports("spmd._src.core", "from spmd._src import api\n", known=KNOWN)
    assert len(bad) == 1 and "spmd._src.api (layer 6)" in bad[0]
    bad, _ = check_imports("spmd._src.core", "import spmd.numpy as jnp\n", known=KNOWN)
    assert len(bad) == 1 and "layer 7" in bad[0]
    bad, _ = check_imports("spmd._src.util", "from spmd._src.core import Primitive\n", known=KNOWN)
    assert len(bad) == 1


def test_checker_accepts_downward_and_same_layer_imports() -> None:
    src = "from spmd._src import util\nfrom spmd._src.core import Tracer\nimport numpy\n"
    assert check_imports("spmd._src.array", src, known=KNOWN) == ([], [])
    assert (
        check_imports("spmd._src.dispatch", "from spmd._src import array\n", known=KNOWN)[0] == []
    )


def test_checker_resolves_relative_imports() -> None:
    bad, _ = check_imports("spmd._src.core", "from . import api\n", known=KNOWN)
    assert len(bad) == 1 and "spmd._src.api" in bad[0]
    bad, _ = check_imports("spmd._src.core", "from .api import jit\n", known=KNOWN)
    assert len(bad) == 1
    bad, _ = check_imports("spmd._src.lax", "from ..api import jit\n", is_package=True, known=KNOWN)
    assert len(bad) == 1 and "spmd._src.api" in bad[0]
    assert check_imports("spmd._src.api", "from .core import Tracer\n", known=KNOWN)[0] == []


def test_checker_lazy_imports() -> None:
    src = "def f():\n    from spmd._src.api import jit\n    return jit\n"
    bad, _ = check_imports("spmd._src.core", src, known=KNOWN)
    assert len(bad) == 1 and "function-level" in bad[0]
    ok = "def f():\n    from spmd._src.api import jit  # lazy: breaks a cycle\n    return jit\n"
    assert check_imports("spmd._src.core", ok, known=KNOWN)[0] == []
    # The escape is for lazy imports only: a module-level import with the comment still fails.
    top = "from spmd._src.api import jit  # lazy: no\n"
    assert len(check_imports("spmd._src.core", top, known=KNOWN)[0]) == 1
    # The comment must give a reason.
    empty = "def f():\n    from spmd._src.api import jit  # lazy:\n"
    assert len(check_imports("spmd._src.core", empty, known=KNOWN)[0]) == 1
    tc = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from spmd._src.array import Array  # lazy: annotations only\n"
    )
    assert check_imports("spmd._src.core", tc, known=KNOWN)[0] == []


def test_checker_reports_unmapped_modules() -> None:
    bad, unmapped = check_imports(
        "spmd._src.core", "from spmd._src import mystery\n", known=KNOWN | {"spmd._src.mystery"}
    )
    assert unmapped == ["spmd._src.mystery"] and len(bad) == 1
    assert layer_of("spmd._src.mystery") == (UNMAPPED_LAYER, False)
    assert layer_of("spmd.demo") == (PUBLIC_LAYER, True)
    assert layer_of("spmd._src.backends.mpi") == (2, True)
    assert layer_of("spmd._src.lax.control_flow") == (4, True)
