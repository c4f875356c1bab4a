"""A collider's collision groups are listed in Sdf.Path's order (omni.physx's: the first filters it); read/collision.py's
groups_of sorts the paths as strings, which is that order for prim paths (their names hold no character below "/").
Checked against Sdf.Path's own ordering on names where the two could part: a path before those below it, "_" and
digits against letters, a name that extends another, names beyond ASCII."""
from __future__ import annotations

import random
import string

from pxr import Sdf

from physxvehicle_usd.read.collision import groups_of

TRICKY = ["/World", "/World/Car", "/World/Car/A", "/World/Car_x", "/World/CarB", "/World/Car2", "/World/car",
          "/World/_Car", "/World/Fleet/Slot_10/Car", "/World/Fleet/Slot_9/Car", "/World/Fleet/Slot_1/Car/Group",
          "/World/Fleet/Slot_1/Car/Group_2", "/World/Fleet/Slot_1/Car0/Group", "/W", "/Wo/rld", "/World/Z/a",
          "/World/Wagen_\u00fc", "/World/Wagen/\u00e9", "/World/\u8eca/A", "/World/\u8eca_2"]


def _random_paths(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    first, rest = string.ascii_letters + "_\u00e9\u8eca", string.ascii_letters + string.digits + "_\u00fc"
    names = ["World", "Car", "Car_1", "Car1", "Group"]
    paths = set()
    while len(paths) < count:
        depth = rng.randint(1, 5)
        parts = [rng.choice(names) if rng.random() < 0.4 else
                 rng.choice(first) + "".join(rng.choice(rest) for _ in range(rng.randint(0, 3))) for _ in range(depth)]
        paths.add("/" + "/".join(parts))
    return list(paths)


def test_a_collider_lists_its_groups_in_sdf_path_order():
    groups = list(dict.fromkeys(TRICKY + _random_paths(3000, seed=7)))
    random.Random(3).shuffle(groups)
    assert all(Sdf.Path.IsValidPathString(g) for g in groups)
    member_of = groups_of({group: {"/World/Car/Chassis"} for group in groups})
    assert member_of["/World/Car/Chassis"] == [str(p) for p in sorted(map(Sdf.Path, groups))]
