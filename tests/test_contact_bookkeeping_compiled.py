"""The compiled contact bookkeeping (sim/_friction_patches.c and sim/_contact_bookkeeping.c through
sim/compiled_patches.py and sim/compiled_manifolds.py) against its numpy twin, the reference: sim/contact/patches.py
`patch_rows` (friction patches and the solver's rows against the static world) gives the same rows and the same
patches to keep as `patch_rows_numpy`, to the bit (0 ulps: dtype, shape and bytes), on random contacts and last-step
patches built to hit the edge cases (normals that agree and ones that do not, kept patches with 0, 1 or 2 anchors,
broken ones, crowded anchors, -0 and NaN) and on real runs: the benchmarks' obstacles fleet driven into its boxes,
every step's contacts and the patches the step before kept."""
from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_bookkeeping, compiled_manifolds, compiled_patches
from physxvehicle_usd.sim.contact.broad import static_candidates
from physxvehicle_usd.sim.contact.geometry import SAME_NORMAL
from physxvehicle_usd.sim.contact.model import first_rows
from physxvehicle_usd.sim.contact.patches import compiled_covers, patch_rows, patch_rows_numpy
from physxvehicle_usd.sim.contact.persistence import Persistence
from physxvehicle_usd.sim.contact.records import Contacts, FrictionPatches
from physxvehicle_usd.sim.contact.reduction import reduce_contacts, reduce_contacts_numpy
from physxvehicle_usd.sim.contact.telemetry import (
    TELEMETRY_SLOTS,
    DeferredTelemetry,
    deferred_telemetry,
    telemetry,
    telemetry_numpy,
)
from physxvehicle_usd.sim.contact.world import kept_point_reduction, patch_points, patch_points_numpy
from physxvehicle_usd.sim.vecmath import quat_to_mat

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage  # noqa: E402

pytestmark = pytest.mark.skipif(not compiled_bookkeeping.available(), reason="the extension is not built")

DT = 1.0 / 60.0


def _same(a, b) -> bool:
    """Equal to the bit: dtype, shape and bytes (0 ulps; -0 is not 0)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _differences(compiled, reference) -> list[str]:
    """The fields of two PatchRows (and of their FrictionPatches and slots) that differ in a bit."""
    out = []
    for f in fields(reference):
        a, b = getattr(compiled, f.name), getattr(reference, f.name)
        if f.name == "points":
            out += [] if a is b else [f.name]
        elif f.name == "friction":
            out += [f"friction.{g.name}" for g in fields(b) if not _same(getattr(a, g.name), getattr(b, g.name))]
        elif f.name == "friction_slot":
            out += [] if _same(a[0], b[0]) and _same(a[1], b[1]) else [f.name]
        elif not _same(a, b):
            out.append(f.name)
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Simulator:
    """The benchmarks' obstacles fleet of 4 cars (a box ahead of every car, the bump road), at rest."""
    folder = tmp_path_factory.mktemp("fleet")
    return Simulator.from_description(read_stage(str(fleet_stage(4, folder, road="obstacles"))), DT)


def _random_step(sim: Simulator, seed: int):
    """patch_rows's arguments for random contacts of the fleet's shapes with its static shapes: a few pairs, each with
    a few contact patches of a few points, normals near a few directions (some within PXC_SAME_NORMAL of each other,
    some not), and last-step patches on some of those pairs (kept, broken, turned away, with 0, 1 or 2 anchors,
    some crowded into a corner)."""
    rng = np.random.default_rng(seed)
    model = sim.contact
    V, G = sim.params.V, model.collides.shape[1]
    rows = rng.choice(len(model.vehicle), size=min(6, len(model.vehicle)), replace=False)
    pairs = sorted({(int(r), int(rng.integers(model.plane_count, G))) for r in rows for _ in range(2)})
    base = np.array([[0.0, 0.0, 1.0], [0.0, 0.6, 0.8], [1.0, 0.0, 0.0]])
    shape, static, point, normal, separation, patch = [], [], [], [], [], []
    for k, (row, other) in enumerate(pairs):
        centre = np.r_[6.0 * model.vehicle[row], 0.0, 0.0] + rng.normal(size=3)
        for _ in range(int(rng.integers(1, 4))):
            n = base[rng.integers(0, 3)] + rng.normal(scale=[0.0, 0.02, 0.04][rng.integers(0, 3)], size=3)
            n /= np.linalg.norm(n)
            m = int(rng.integers(1, 7))
            shape += [row] * m
            static += [other] * m
            point.append(centre + rng.normal(scale=0.5, size=(m, 3)))
            normal.append(np.repeat(n[None], m, axis=0))
            separation.append(rng.normal(scale=0.02, size=m))
            patch += [len(set(patch))] * m
    point, normal, separation = np.concatenate(point), np.concatenate(normal), np.concatenate(separation)
    point[rng.random(point.shape) < 0.05] = -0.0
    normal[rng.random(normal.shape) < 0.05] *= -0.0
    separation[rng.random(len(separation)) < 0.05] = np.nan
    contacts = Contacts(np.array(shape), np.array(static), point, normal, separation, patch=np.array(patch))
    position = np.asarray(sim.state.body_position, np.float32) + rng.normal(scale=0.01, size=(3, V)).astype(np.float32)
    q = rng.normal(size=(4, V))
    orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    R = quat_to_mat(orientation.astype(float)).transpose(2, 0, 1)
    # last-step patches: on the contacts' pairs (their normals in the body's frame, some turned away) and elsewhere
    P = 2 * len(pairs)
    pick = rng.integers(0, len(shape), P)
    vehicle = model.vehicle[contacts.shape[pick]]
    pv = np.where(rng.random(P) < 0.8, vehicle, rng.integers(0, V, P))
    first = first_rows(model)
    pshape = np.clip(contacts.shape[pick] - first[pv], 0, None)
    pstatic = contacts.static[pick]
    body_normal = np.einsum("pji,pj->pi", R[pv], normal[pick])
    body_normal[rng.random(P) < 0.2] = [0.0, 1.0, 0.0]
    other_normal = normal[pick].copy()
    other_normal[rng.random(P) < 0.1] *= -1.0
    world_anchor = point[pick][:, None, :] + rng.normal(scale=0.3, size=(P, 2, 3))
    crowded = rng.random(P) < 0.3
    world_anchor[crowded, 1] = world_anchor[crowded, 0] + 1e-3
    p = position.T.astype(float)[pv]
    body_anchor = np.einsum("pji,paj->pai", R[pv], world_anchor - p[:, None, :])
    other_anchor = world_anchor + rng.normal(scale=0.01, size=(P, 2, 3)) * (rng.random((P, 1, 1)) < 0.3)
    order = np.lexsort((pstatic, first[pv] + pshape))
    previous = FrictionPatches(pv, pshape, pstatic, body_normal, other_normal, rng.integers(0, 3, P), body_anchor,
                               other_anchor, rng.random(P) < 0.15).subset(order)
    touched = np.unique(model.vehicle[contacts.shape])
    return model, contacts, touched, position, orientation, sim.params.length_scale, previous


def test_rows_made_with_their_patches_or_apart_are_numpy_s_to_the_bit(fleet, monkeypatch):
    """The rows in the friction patches' C call where they fit the block kept for them, else in a call of their own
    (`write_rows`) and the block grown for the next step: both numpy's rows, to the bit."""
    args = _random_step(fleet, 3)
    reference = patch_rows_numpy(*args)
    patch_rows(*args)
    tables = args[0].cache["compiled_patches"]
    tables.row_capacity = 8  # (too few bytes for any rows)
    made = compiled_patches.friction_patches
    with_rows = []

    def recorded(*arguments):
        out = made(*arguments)
        with_rows.append(out.rows is not None)
        return out

    monkeypatch.setattr(compiled_patches, "friction_patches", recorded)
    apart, together = patch_rows(*args), patch_rows(*args)
    assert with_rows == [False, True] and tables.row_capacity > 8
    assert not _differences(apart, reference) and not _differences(together, reference)


@pytest.mark.parametrize("seed", range(40))
def test_random_contacts_make_the_same_patches_and_rows_to_the_bit(fleet, seed):
    args = _random_step(fleet, seed)
    assert compiled_covers(args[0], args[1])
    reference = patch_rows_numpy(*args)
    assert not _differences(patch_rows(*args), reference)
    assert not _differences(patch_rows(*args[:-1], None), patch_rows_numpy(*args[:-1], None))  # no last step
    if seed == 0:  # the cases were hit: kept patches, new ones, grown anchors
        assert reference.friction.anchor_count.max() == 2 and len(reference.friction) > 1


@pytest.mark.parametrize("seed", range(8))
def test_float64_orientations_make_the_same_patches_and_rows_to_the_bit(fleet, seed):
    """(the C turns the orientations into rotations itself, as vecmath.quat_to_mat does from float64 ones)"""
    model, contacts, touched, position, orientation, length_scale, previous = _random_step(fleet, 100 + seed)
    q = np.random.default_rng(seed).normal(size=orientation.shape)
    orientation = q / np.linalg.norm(q, axis=0)  # float64, not float32-representable
    args = (model, contacts, touched, position, orientation, length_scale, previous)
    assert not _differences(patch_rows(*args), patch_rows_numpy(*args))


# the contacts of each refresh that reduced them in its call (`_same_refresh`)
_REDUCED_IN_THE_REFRESH: list[int] = []


def _same_refresh(sim: Simulator, position: np.ndarray, orientation: np.ndarray) -> bool:
    """Assert that the step's PCM manifolds (sim.state.manifolds) re-measured at these poses keep the same pairs and
    points and report the same contacts in C as in numpy, to the bit; whether there were points to re-measure."""
    model, ground, manifolds = sim.contact, sim.ground, sim.state.manifolds
    planes, hulls, triangles, R_all = static_candidates(model, ground, position, orientation)
    if R_all is None:
        return False
    args = (model, ground, planes, hulls, triangles, (np.zeros(0, np.int64),) * 2, R_all, position, orientation,
            sim.params.length_scale, manifolds)
    compiled, reference = Persistence(*args), Persistence(*args, compiled=False)
    if not reference.key.size:  # near nothing
        return False
    # the kept contacts reduced in the refresh's call (where every pair keeps its points and none is left to make
    # anew): numpy's reduction of numpy's refreshed contacts, and the manifolds numpy's record keeps of them
    reducing = Persistence(*args, reduction=kept_point_reduction(model))
    if reducing.reduced is not None:
        left = (sum(len(rows) for rows in reference.planes) + len(reference.hull_pairs[0])
                + len(reference.tri_pairs[0]) + len(reference.round_pairs[0]))
        assert reference.is_kept.all() and not left
        expected = reduce_contacts_numpy(reference.kept, patch_points_numpy(model, reference.kept.shape,
                                                                             reference.kept.static))
        assert _same_contacts(reducing.reduced, expected)
        a, b = reducing.reduced.manifolds, reference.record(expected)
        assert all(_same(getattr(a.pairs, f.name), getattr(b.pairs, f.name)) for f in fields(b.pairs))
        assert all(_same(getattr(a.points, f.name), getattr(b.points, f.name)) for f in fields(b.points))
        _REDUCED_IN_THE_REFRESH.append(len(expected))
    else:
        assert _same(reducing.is_kept, reference.is_kept) and _same_contacts(reducing.kept, reference.kept)
    assert _same(compiled.is_kept, reference.is_kept) and _same_contacts(compiled.kept, reference.kept)
    for name in ("kept_pairs", "kept_points"):
        a, b = getattr(compiled, name), getattr(reference, name)
        assert (a is None) == (b is None) and (a is None or all(_same(getattr(a, f.name), getattr(b, f.name))
                                                                for f in fields(b)))
    for a, b in zip((compiled.tri_pairs, compiled.hull_pairs), (reference.tri_pairs, reference.hull_pairs)):
        assert _same(a[0], b[0]) and _same(a[1], b[1])
    # the manifolds to keep, of the last step's contacts (some of them the pairs made anew here)
    contacts = sim.state.contacts.points if sim.state.contacts is not None else Contacts.empty()
    a, b = compiled.record(contacts), reference.record(contacts)
    assert all(_same(getattr(a.pairs, f.name), getattr(b.pairs, f.name)) for f in fields(b.pairs))
    assert all(_same(getattr(a.points, f.name), getattr(b.points, f.name)) for f in fields(b.points))
    return manifolds is not None and len(manifolds.points) > 0 and bool(reference.is_kept.any())


def test_the_obstacles_fleet_driven_into_its_boxes_makes_the_same_patches_and_rows_to_the_bit(tmp_path):
    sim = Simulator.from_description(read_stage(str(fleet_stage(2, tmp_path, road="obstacles"))), DT)
    compared = kept = refreshed = 0
    window = []
    rng = np.random.default_rng(7)
    for _ in range(150):
        position, orientation = sim.state.body_position.copy(), sim.state.body_orientation.copy()
        previous = sim.state.friction
        # PCM's kept points re-measured at the step's poses and at poses moved and turned a little more (some pairs
        # move or turn too far, some points drift off)
        for shift, turn in ((0.0, 0.0), (3e-3, 1e-3), (2e-2, 2e-2)):
            moved = position + rng.normal(scale=shift, size=position.shape).astype(np.float32)
            turned = orientation + rng.normal(scale=turn, size=orientation.shape).astype(np.float32)
            turned /= np.linalg.norm(turned, axis=0)
            refreshed += _same_refresh(sim, moved, turned)
        sim.step({"accelerator": 1.0})
        step = sim.state.contacts
        if step is None or step.points is None or not len(step.points):
            continue
        args = (step.model, step.points, np.arange(sim.params.V), position, orientation, sim.params.length_scale,
                previous)
        assert compiled_covers(step.model, step.points)
        assert not _differences(patch_rows(*args), patch_rows_numpy(*args))
        got, reference = telemetry(sim.params.V, step.solved, position), telemetry_numpy(sim.params.V, step.solved,
                                                                                         position)
        assert all(_same(got[name], reference[name]) for name in reference)
        # the contacts of this step and the two before taken together: patches of more points, some repeated
        window.append(step.points)
        together = Contacts(*(np.concatenate([getattr(c, name) for c in window[-3:]])
                              for name in ("shape", "static", "point", "normal", "separation")))
        whole = np.where(together.static < step.model.polytope_first, 6, 4)  # the road's patches keep six
        assert _same_contacts(reduce_contacts(together, whole), reduce_contacts_numpy(together, whole))
        compared += 1
        kept += previous is not None and len(previous) > 0
    assert compared > 50 and kept > 50  # the chassis met its box (and kept patches) most of the run
    assert refreshed > 100  # (and kept points to re-measure)
    assert len(_REDUCED_IN_THE_REFRESH) > 50 and max(_REDUCED_IN_THE_REFRESH) > 0  # (and every pair kept them)


def _same_contacts(a: Contacts, b: Contacts) -> bool:
    return all(_same(getattr(a, name), getattr(b, name)) for name in ("shape", "static", "point", "normal",
                                                                        "separation", "patch"))


def _random_contacts(seed: int) -> tuple[Contacts, np.ndarray]:
    """Unreduced contacts of a few pairs in no order, each of a few normals (some within PXC_SAME_NORMAL of another,
    some not), up to 20 points a normal (so patches of more than four and six points), some made twice, some at the
    same depth or distance (firsts of equals), -0 coordinates; and how many points each patch keeps whole (4 or 6)."""
    rng = np.random.default_rng(seed)
    base = np.array([[0.0, 0.0, 1.0], [0.0, 0.6, 0.8], [1.0, 0.0, 0.0]])
    shape, static, point, normal, separation = [], [], [], [], []
    for _ in range(int(rng.integers(1, 6))):
        row, other = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        for _ in range(int(rng.integers(1, 4))):
            n = base[rng.integers(0, 3)] + rng.normal(scale=[0.0, 0.02, 0.05][rng.integers(0, 3)], size=3)
            n /= np.linalg.norm(n)
            m = int(rng.integers(1, 21))
            shape += [row] * m
            static += [other] * m
            x = rng.normal(scale=[0.5, 5.0, 50.0][rng.integers(0, 3)], size=(m, 3))
            twice = rng.random(m) < 0.2
            x[twice] = x[0] + rng.normal(scale=1e-9, size=(int(twice.sum()), 3))  # made twice (within the grid)
            x[rng.random((m, 3)) < 0.05] = -0.0
            point.append(x)
            normal.append(np.repeat(n[None], m, axis=0))
            depth = rng.normal(scale=0.01, size=m)
            depth[rng.random(m) < 0.2] = depth[0]  # equally deep
            separation.append(depth)
    order = rng.permutation(len(shape)) if rng.random() < 0.5 else np.arange(len(shape))
    c = Contacts(np.array(shape)[order], np.array(static)[order], np.concatenate(point)[order],
                 np.concatenate(normal)[order], np.concatenate(separation)[order])
    return c, np.where(c.static == 1, 6, 4)


@pytest.mark.parametrize("seed", range(60))
def test_random_contacts_reduce_to_the_same_points_and_patches_to_the_bit(seed):
    c, whole = _random_contacts(seed)
    reference = reduce_contacts_numpy(c, whole)
    assert _same_contacts(reduce_contacts(c, whole), reference)
    assert _same_contacts(reduce_contacts(c), reduce_contacts_numpy(c))
    if seed == 0:  # the cases were hit: patches reduced, repeated points dropped
        assert len(reference) < len(c) and np.bincount(reference.patch).max() >= 4


class _SolvedRows:
    """A solve group's rows as telemetry reads them (contact_rows.StaticContactRows's fields), random: Vr vehicles,
    Pm patches of K points, a share of them active, float32 or float64 arms and impulses (numpy widens them)."""

    def __init__(self, rng, Vr: int, Pm: int, K: int, share: float, dtype):
        self.active = rng.random((Vr, Pm, K)) < share
        self.arm = rng.normal(size=(3, Vr, Pm, K)).astype(dtype)
        self.arm[rng.random(self.arm.shape) < 0.05] = -0.0
        self.normal = rng.normal(size=(3, Vr, Pm)).astype(dtype)
        self.impulse = rng.random((Vr, Pm, K)).astype(dtype)


def test_patch_points_read_from_the_models_table_are_the_worked_out_ones(fleet):
    """generate's points kept whole per patch, read from the model's kept table (`patch_points`), are numpy's worked out
    ones for every (shape row, static shape) of the obstacles fleet, and again after its radii and cylinders are
    replaced (the table made anew: some rows round, one an exact cylinder, where a mesh's patches keep four points)."""
    import dataclasses

    model = fleet.contact
    N, G = model.collides.shape
    shape, static = (a.ravel() for a in np.meshgrid(np.arange(N), np.arange(G), indexing="ij"))
    every = Contacts(shape, static, np.zeros((len(shape), 3)), np.zeros((len(shape), 3)), np.zeros(len(shape)))
    assert _same(patch_points(model, every), patch_points_numpy(model, shape, static))
    assert (patch_points(model, every) == 6).any()  # (convex shapes on the road's mesh)
    radius = np.zeros(N)
    radius[::2] = 0.1
    ends = np.full((N, 2, 3), np.nan)
    ends[1] = ((0.0, -0.1, 0.0), (0.0, 0.1, 0.0))
    for changed in (dataclasses.replace(model, radius=radius),
                    dataclasses.replace(model, cylinder_ends=ends, cylinder_radius=np.full(N, 0.3))):
        changed.cache.update(model.cache)  # (a posed model shares its cache: the table must see the new arrays)
        table = patch_points(changed, every)
        assert _same(table, patch_points_numpy(changed, shape, static))
        assert not _same(table, patch_points(model, every))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_telemetry_reports_the_same_slots_to_the_bit(dtype):
    rng = np.random.default_rng(5)
    V = 9
    begin = rng.normal(size=(3, V)).astype(np.float32)
    # groups with a vehicle in two of them, one vehicle with more points than the slots, one without any
    solved = [(np.array([0, 2, 5]), _SolvedRows(rng, 3, 2, 4, 0.6, dtype)),
              (np.array([2, 7]), _SolvedRows(rng, 2, 5, 6, 0.9, dtype)),
              (np.array([1, 5, 8]), _SolvedRows(rng, 3, 1, 4, 0.0, dtype))]
    got, reference = telemetry(V, solved, begin), telemetry_numpy(V, solved, begin)
    assert got["contactCount"][2] > TELEMETRY_SLOTS
    assert all(_same(got[name], reference[name]) for name in reference)


def test_deferred_telemetry_is_the_steps_own_when_read_later():
    """The telemetry a step defers (every group's rows its own) reads, after the caller's begin buffer was written
    again, the slots made at once from the step's positions, to the bit; rows not marked as the step's own are made
    at once (a plain dict)."""
    rng = np.random.default_rng(7)
    V = 6
    begin = rng.normal(size=(3, V)).astype(np.float32)
    owned = [(np.array([0, 3]), _SolvedRows(rng, 2, 3, 4, 0.7, np.float64)),
             (np.array([5]), _SolvedRows(rng, 1, 2, 4, 0.9, np.float64))]
    for _, rows in owned:
        rows.step_owned = True
    reference = telemetry_numpy(V, owned, begin)
    deferred = deferred_telemetry(V, owned, begin)
    assert isinstance(deferred, DeferredTelemetry)
    begin[...] = 0.0  # (the next step's begin in the same buffer)
    assert sorted(deferred) == sorted(reference) and len(deferred) == len(reference)
    assert all(_same(deferred[name], reference[name]) for name in reference)
    assert reference["contactCount"].sum() > 0
    made = deferred_telemetry(V, [(np.array([1]), _SolvedRows(rng, 1, 2, 4, 0.9, np.float64))], begin)
    assert type(made) is dict and made["contactCount"][1] > 0


def test_plane_pairs_of_two_shapes_are_left_to_numpy(tmp_path):
    # two cars' chassis boxes on the ground plane: `_plane_pair_order` orders their pairs, which the C leaves to numpy
    sim = Simulator.from_description(read_stage(str(fleet_stage(2, tmp_path))), DT)
    model = sim.contact
    rows = np.array([first_rows(model)[0], first_rows(model)[1]])
    assert model.plane_count > 0

    def on_plane(rows):
        n = len(rows)
        return Contacts(rows, np.zeros(n, np.int64), np.zeros((n, 3)), np.tile([0.0, 0.0, 1.0], (n, 1)), np.zeros(n),
                        patch=np.arange(n))

    assert not compiled_covers(model, on_plane(rows))
    assert compiled_covers(model, on_plane(rows[:1])) and compiled_covers(model, on_plane(rows[[0, 0]]))
    args = (model, on_plane(rows), np.arange(2), sim.state.body_position, sim.state.body_orientation,
            sim.params.length_scale)
    assert not _differences(patch_rows(*args), patch_rows_numpy(*args))


def test_the_extension_was_built_with_pxc_same_normal():
    assert compiled_bookkeeping.same_normal_agrees(SAME_NORMAL)
    assert not compiled_bookkeeping.same_normal_agrees(0.9999)


def test_the_refresh_turns_made_in_c_decide_as_numpys_or_hand_the_comparison_back():
    """refresh_and_reduce makes each pair's turn (einsum's dot, in its order) and travel (libm's arccos, which may
    differ from numpy's in the last bit) in C: on one box pair against a static box whose far side travels about as
    far as its move limit allows, every decision it makes is the one it makes given numpy's turn and travel (0 ulps),
    which keeps the pair where numpy's travel is within the limit; where the travel lies within 1e-9 of the limit it
    hands the comparison back (None) rather than decide."""
    rng = np.random.default_rng(3)
    tables = compiled_manifolds.refresh_tables(np.zeros(1, np.int64), np.ones(1, bool), np.full(1, 0.5), np.zeros(1),
                                                 None, np.ones(1, bool), np.full(1, 0.5), np.full((1, 1), 0.1))
    limit = 0.25 * min(0.15 * 0.5, 0.15 * 1.0)  # two points held: POLYTOPE_MOVED[2] margins
    length, position = np.ones(1), np.zeros((3, 1))
    point = np.array([[0.3, 0.2, 0.0], [-0.3, 0.2, 0.0]])
    handed_back = decided = 0
    outcomes = set()
    for _ in range(300):
        half = rng.uniform(1e-3, 5e-3)  # (a float32 cosine below 1)
        orientation = np.array([[0.0], [0.0], [np.sin(half)], [np.cos(half)]])
        if rng.random() < 0.5:
            orientation = orientation.astype(np.float32)
        prev_orientation = np.array([[0.0, 0.0, 0.0, 1.0]])
        turn = np.einsum("jp,pj->p", orientation.astype(float), prev_orientation)
        # a reach that carries the far side to the limit, or a little short of it or past it
        reach = limit / np.arccos(np.minimum(np.maximum(turn, -1.0), 1.0)) * (1.0 + rng.choice([0.0, 1e-15, -1e-15,
                                                                                                   1e-6, -1e-6]))
        travel = np.arccos(np.minimum(np.maximum(turn, -1.0), 1.0)) * reach
        rotation = quat_to_mat(orientation.astype(float))
        inputs = compiled_manifolds.refresh_inputs(
            np.zeros(1, np.int64), np.zeros(1, np.int64), np.full(1, 2), np.ones(1, bool), np.zeros(1, np.int64),
            np.zeros((1, 3)), np.zeros(2, np.int64), np.einsum("ji,qj->qi", rotation[:, :, 0], point), point,
            np.tile([0.0, 0.0, 1.0], (2, 1)), np.zeros(1), prev_orientation, reach)
        made = compiled_manifolds.refresh_and_reduce(inputs, tables, 0, length, rotation, position, orientation,
                                                       None)
        given = compiled_manifolds.refresh_and_reduce(inputs, tables, 0, length, rotation, position, orientation,
                                                        None, turn, travel)
        # (numpy's decision: kept where the far side's travel is within the limit)
        keep_pair = given[0]
        assert bool(keep_pair[0]) == bool(travel[0] <= limit) and given[5] is None
        if made is not None:
            assert all(_same(a, b) for a, b in zip(made[:4], given[:4]))
            assert all(_same(a, b) for a, b in zip(made[4], given[4])) and made[5] is None
        near = abs(travel[0] - limit) <= 1e-9 * (abs(travel[0]) + limit)
        assert (made is None) == near
        handed_back += made is None
        decided += made is not None
        outcomes.add(bool(keep_pair[0]))
    # (both hit: travels at the limit, and short of it or past it, kept and made anew)
    assert handed_back > 50 and decided > 50 and outcomes == {True, False}
