"""A step of a fleet resting against the static world, or clear of it (sim/contact/world.py `generate`'s steady step):
where the last step's candidate pairs all kept their points and nothing else was made (persistence.py's `reduced`),
the next step is most likely the same: the same candidates, every pair keeping its points, again; where the last step
found no candidate, the next most likely finds none. `prepare` (`prepare_quiet`) keeps one compiled call
(compiled_manifolds.SteadyContacts) that makes such a step whole, the broad phase, the check that it found the same
candidates, the refresh of their kept points and their reduction; `contacts` asks it, and the step's path (world.py)
makes any step that turns out otherwise. The same calls in the same order as that path: the same bits."""
from __future__ import annotations

import numpy as np

from .. import compiled_manifolds, compiled_placement
from ..ground import Ground
from .model import ContactModel
from .persistence import Persistence
from .records import Contacts, Manifolds, no_manifold_points


def prepare(model: ContactModel, ground: Ground, persistence: Persistence, planes: list[np.ndarray],
            hull_pairs: tuple, tri_pairs: tuple, rounds: tuple, position: np.ndarray) -> None:
    """Keep the steady call for the next step in the model's cache, after a step whose candidates (planes,
    hull_pairs, tri_pairs, rounds: `generate`'s) all kept their points (`persistence.reduced`), where the call
    covers the step: the broad phase of a ground of meshes and static polytopes alone (no plane, no static sphere or
    capsule), compiled (the boxes and the pairs kept with their words)."""
    model.cache["steady_contacts"] = None
    match = persistence.match
    if getattr(match.refresh_inputs, "reduce_words", None) is not None:
        _prepare(model, ground, match, planes, hull_pairs, tri_pairs, rounds, position)


def prepare_quiet(model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_pairs: tuple,
                  tri_pairs: tuple, rounds: tuple, position: np.ndarray) -> None:
    """`prepare` after a quiet step, whose broad phase found no candidate (`generate`'s planes .. rounds, none):
    the call that finds none again, or hands the step back."""
    model.cache["steady_contacts"] = None
    _prepare(model, ground, None, planes, hull_pairs, tri_pairs, rounds, position)


def _prepare(model: ContactModel, ground: Ground, match, planes: list[np.ndarray], hull_pairs: tuple,
             tri_pairs: tuple, rounds: tuple, position: np.ndarray) -> None:
    """`prepare` and `prepare_quiet`: the call of the persistence match `match` (None: none, quiet)."""
    pairs = model.cache.get("static_pairs")
    boxes = compiled_placement.kept_words(model.vehicle, model.box_centre, model.box_half, model.reach)
    if (planes or rounds[0].size or model.static_rounds is not None or len(ground.plane_normals)
            or ground.grid is None or pairs is None or pairs[0] is not ground or pairs[3] is None or boxes is None):
        return
    call = compiled_manifolds.SteadyContacts(boxes, pairs[3], None if match is None else match.refresh_inputs,
                                             position.shape[1], len(model.vehicle), tri_pairs, hull_pairs)
    model.cache["steady_contacts"] = (model, ground, match, call)


def contacts(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray,
             previous, length_scale: np.ndarray, threads: int) -> Contacts | None:
    """The step's contacts with the manifolds to keep (as `generate` makes them) where the kept call finds the step
    steady; None where none is kept for this model, ground and match (persistence.py's, which the last step's
    manifolds `previous` would find again), or the step is not steady (the call is dropped: `prepare` keeps another
    after a steady step)."""
    kept = model.cache.get("steady_contacts")
    if kept is None:
        return None
    kept_model, kept_ground, match, call = kept
    if kept_model is not model or kept_ground is not ground:
        return None
    if match is not None:  # (the last step's manifolds find the match again)
        last = model.cache.get("persistence_match")
        if (previous is None or last is None or last[2] is not match or last[0][0] is not previous.pairs
                or last[0][1] is not previous.points or last[0][2] is not ground.tri_shape):
            return None
    made = call(position, orientation, length_scale, threads)
    if made is None:
        model.cache["steady_contacts"] = None
        return None
    if match is None:  # (quiet: near nothing, no manifold kept)
        return Contacts.empty()
    _, keep_point, kept, patch = made
    points = match.pts if keep_point is None else match.pts.subset(keep_point)  # (read, never written)
    out = Contacts(*kept, patch=patch) if len(patch) else Contacts.empty()
    out.manifolds = Manifolds(match.steady[1], points if len(points) else no_manifold_points())
    return out
