"""Sharding cases shared by the JAX golden generator and the spmd test.

Each case names a mesh shape, axis names, an array shape and a spec (a tuple of entries: None,
an axis name, or a tuple of names). Both sides compute shard_shape, devices_indices_map (as
device id -> [[start, stop], ...]), the addressable shards' indices and replica ids, and the
picture of visualize_array_sharding for 1-D and 2-D arrays.
"""

MESHES = {
    "8": ((8,), ("x",)),
    "2x4": ((2, 4), ("x", "y")),
    "4x2": ((4, 2), ("x", "y")),
    "2x2x2": ((2, 2, 2), ("x", "y", "z")),
}

SPECS = {
    "8": [
        ((8,), ()),
        ((8,), ("x",)),
        ((16,), ("x",)),
        ((8, 4), ("x",)),
        ((8, 4), (None, None)),
        ((4, 8), (None, "x")),
        ((16, 2, 3), ("x", None, None)),
    ],
    "2x4": [
        ((4, 8), ("x", "y")),
        ((4, 8), ("y", "x")),
        ((4, 8), ("x",)),
        ((4, 8), ("y",)),
        ((4, 8), (None, "y")),
        ((4, 8), (None, "x")),
        ((8, 4), (("x", "y"),)),
        ((8, 4), (("y", "x"),)),
        ((8, 8), (None, ("x", "y"))),
        ((8,), ("y",)),
        ((8,), (("x", "y"),)),
        ((8,), ()),
        ((4, 4, 2), ("y", None, "x")),
    ],
    "4x2": [
        ((4, 8), ("x", "y")),
        ((8, 2), ("x", None)),
        ((4, 8), (None, ("y", "x"))),
        ((8,), ("x",)),
        ((16,), (("x", "y"),)),
    ],
    "2x2x2": [
        ((4, 4), ("x", "y")),
        ((4, 4), (("x", "z"), "y")),
        ((8,), (("x", "y", "z"),)),
        ((2, 2, 2), ("x", "y", "z")),
        ((2, 2, 2), ("z", "y", "x")),
        ((4, 6), ("y", None)),
        ((4, 4), (None, ("z", "x"))),
    ],
}


def all_cases():
    for mesh_name, specs in SPECS.items():
        for shape, spec in specs:
            name = f"{mesh_name}:{shape}:{spec}"
            yield name, mesh_name, shape, spec
