"""The contact rows of one solve as PhysX's solver prepares and sweeps them: `StaticContactRows` (a vehicle's shapes
against the static world, DyTGSContactPrep.cpp / DyContactPrep.cpp for one dynamic body) and `PairContactRows` (two
vehicles' shapes against each other, both bodies dynamic). sim/row_solver.py builds them per solve group and calls
their sweeps after the vehicle's constraint rows in every iteration. The numpy form is the reference: the compiled
solve makes `StaticContactRows`' arrays in C (sim/_contact_rows.c, compiled_rows.CompiledContactRows, the same bits)
and sweeps them there (sim/_row_solver.c).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from . import vecmath as vm

if TYPE_CHECKING:
    from .solver_rows import PairRows, PatchRows
    from .state import SimParams


def dot6(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row Jacobian times body velocity (or motion): (6, n...) . (6, n...) -> (n...). The products are summed over the
    first axis one after another, as row_solver's sum of six terms adds them (numpy reduces the outer axis of a
    C-ordered product row by row), in two numpy calls rather than eleven: the contact sweep makes thousands a step."""
    return (a * b).sum(axis=0)


# PhysX's contact constants: the velocity multiplier of friction rows and the Baumgarte factor of penetrating
# contacts are min(0.8, biasCoefficient), biasCoefficient = 2 sqrt(1 / position iterations) (DyTGSDynamics.cpp,
# setupFinalizeSolverConstraints); a relative speed below this squared length picks the fallback friction axis.
MAX_CONTACT_BIAS_FACTOR = 0.8
_FRICTION_AXIS_MIN_SPEED_SQ = 1e-4
# A friction row's bias is its anchor's error over the sub-step, unscaled: PhysX 5.8 (release/110.0,
# DyTGSContactPrep.cpp: frictionBiasScale = invDt) dropped the factor min(0.8, biasCoefficient) that 5.6 applied to it
# on top of the row's velocity multiplier (its changelog: "the bias coefficient was applied to the strong/sticky
# friction bias twice on CPU when using the TGS solver"); ovphysx 0.7 runs the fixed solver (with the factor, the
# impact of Ridge10 rolled the car the other way, 47 % angular speed against 0.2 % now).
FRICTION_BIAS_PER_SUBSTEP = 1.0

# a solve of this many vehicles or more spreads each body's rotation over its rows before the rows' products: einsum
# sweeps an operand broadcast over the rows' axes several times slower than a whole one (the same sums, j = 0, 1, 2 in
# order); a few vehicles' rows are cheaper without the copy
_SPREAD_ROTATION_VEHICLES = 8


def _mask_or_none(mask: np.ndarray) -> np.ndarray | None:
    """A row's per-vehicle mask, or None where it holds for every vehicle (the select it would make is skipped)."""
    return None if mask.all() else mask.copy()


def _normal_row_targets(rows: PatchRows | PairRows, vrel: np.ndarray, h: float, dt: float, p8: float):
    """(bias coefficient, target velocity, geometric error) of contact normal rows (`rows`: separation, rest_distance,
    restitution and bounce threshold, per row or patch) closing at vrel. A row bounces where its restitution is > 0,
    it approaches faster than the threshold (the scene's physxScene:bounceThreshold) and it would close within the
    step (DyTGSContactPrep.cpp's isGreater2; PhysX's context holds the threshold negated)."""
    penetration = rows.separation - rows.rest_distance[..., None]
    bias_coefficient = -np.where(penetration > 0.0, 1.0 / h, p8 / h)
    e = rows.restitution[..., None]
    bouncing = (e > 0.0) & (-vrel > rows.bounce_threshold[:, None, None]) & (-vrel > penetration / dt)
    target = np.where(bouncing, -vrel * e, 0.0)
    error = penetration + np.where(bouncing, target * (dt + penetration / np.where(bouncing, vrel, 1.0)), 0.0)
    return bias_coefficient, target, error


def _friction_axes(n: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A patch's friction directions: t0 along the tangential part of the velocity v (else a fixed axis square to
    the normal n), t1 = n x t0."""
    t0 = v - n * vm.dot(n, v)
    fallback = np.where(np.abs(n[0]) < 0.70710678, np.stack((np.zeros_like(n[0]), -n[2], n[1])),
                        np.stack((-n[1], n[0], np.zeros_like(n[0]))))
    t0 = np.where(vm.dot(t0, t0) > _FRICTION_AXIS_MIN_SPEED_SQ, t0, fallback)
    t0 = t0 / np.maximum(vm.norm(t0), 1e-30)
    t1 = vm.cross(n, t0)
    return t0, t1 / np.maximum(vm.norm(t1), 1e-30)


def prepare_pgs_constants(rows: "StaticContactRows | PairContactRows", dt: float) -> None:
    """PGS's constants of contact rows, static or between vehicles (DyContactPrep.cpp setupFinalizeSolverConstraints,
    rows built with one iteration, h = dt): a normal row's bias is fixed at the begin pose, -min(max depenetration,
    0.8 penetration / dt) in contact, the separation / dt (negative: the approach it allows) apart, none where it
    bounces; a friction row's bias is its anchor's error (the last of each `F` entry) over dt."""
    penetration = rows.error  # with h = dt and no bounce, the geometric error is the penetration
    rows.pgs_bias = np.where(rows.target != 0.0, 0.0, np.minimum(rows.max_bias[:, None, None],
                                                                 rows.bias_coefficient * penetration))
    rows.pgs_friction_bias = [entry[-1] / dt for entry in rows.F]


class StaticContactRows:
    """The contact rows of some vehicles (sim/contact/patches.py patch_rows, subset to them) as DyTGSContactPrep.cpp
    prepares them (setupFinalizeSolverConstraints) and solves them (solveContact): per patch its normal rows, then the
    two friction rows of each anchor, clamped together against the patch's summed normal impulse. A friction row drives
    back how far its anchor has moved since the anchor was made (`anchor_error`, then the motion of the solve) at 1 / h
    (`FRICTION_BIAS_PER_SUBSTEP`), and no impulse is carried over from the last step (PhysX starts every friction row
    at zero). `broken`: the patches whose friction was clamped in the last pass (they slide: PhysX does not keep their
    anchors)."""

    def __init__(self, p: SimParams, patches: PatchRows, vehicles: np.ndarray, R: np.ndarray, x: np.ndarray, dt: float,
                 iterations: int, dtype, cut_rows: bool = True) -> None:
        """cut_rows: cut each row's arrays out for the numpy sweeps (without: the whole arrays only, as tests read
        them)."""
        h = dt / iterations
        self.p8 = min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / iterations))
        self.active = patches.point_active
        self.arm, self.normal = patches.arm, patches.normal  # for telemetry
        self.anchors = patches.anchor_active
        self.Pm = self.active.shape[1]
        mass = p.mass[vehicles].astype(float)
        moi = p.moi[:, vehicles].astype(float)

        rotations = {}  # by the rows' shape: the normal rows', the friction rows'

        def rotation(shape):  # R (3, 3, Vr) over the rows' axes (3, Vr, ...): see _SPREAD_ROTATION_VEHICLES
            extra = (None,) * (len(shape) - 2)
            Rk = R[(slice(None), slice(None), slice(None)) + extra]
            if len(vehicles) < _SPREAD_ROTATION_VEHICLES:
                return Rk
            if shape not in rotations:
                rotations[shape] = np.ascontiguousarray(np.broadcast_to(Rk, (3, 3) + shape[1:]))
            return rotations[shape]

        def jacobian(linear, arm):  # (3, Vr, ...) each -> J (6, Vr, ...), W J, unit response
            extra = (None,) * (linear.ndim - 2)
            linear = np.ascontiguousarray(linear)  # a normal or axis broadcast over the points: made whole
            ang = vm.cross(arm, linear)
            Rk = rotation(linear.shape)
            w_ang = vm.matvec(Rk, vm.matTvec(Rk, ang) / moi[(slice(None), slice(None)) + extra])
            w_lin = linear / mass[(slice(None),) + extra]
            unit = vm.dot(linear, w_lin) + vm.dot(ang, w_ang)
            return np.concatenate((linear, ang)), np.concatenate((w_lin, w_ang)), unit

        normal = np.broadcast_to(patches.normal[..., None], patches.arm.shape)
        self.J, self.WJ, u = jacobian(normal, patches.arm)
        ok = self.active & (u > 0.0)
        self.recip = np.where(ok, 1.0 / np.where(ok, u, 1.0), 0.0)
        vrel = np.einsum("k...,k...->...", self.J, x[(slice(None), slice(None), None, None)])
        self.bias_coefficient, self.target, self.error = _normal_row_targets(patches, vrel, h, dt, self.p8)
        self.max_bias = p.max_depenetration_velocity[vehicles].astype(float)
        self.impulse = np.zeros(self.active.shape)
        # friction: t0 along the body's tangential velocity (else a fixed axis square to the normal), t1 = n x t0
        t0, t1 = _friction_axes(patches.normal, x[:3, :, None])
        arm = patches.anchor_arm
        self.F = []
        for t in (t0, t1):
            J, WJ, u = jacobian(np.broadcast_to(t[..., None], arm.shape), arm)
            ok = self.anchors & (u > 0.0)
            error = vm.dot(patches.anchor_error, t[..., None])
            self.F.append((J, WJ, np.where(ok, self.p8 / np.where(ok, u, 1.0), 0.0), error))
        self.friction_bias = FRICTION_BIAS_PER_SUBSTEP / h
        self.scale = np.where(self.anchors.sum(axis=2) == 2, 0.5, 1.0)
        self.static_friction = patches.static_friction
        self.dynamic_friction = patches.dynamic_friction
        self.friction = np.zeros(self.anchors.shape + (2,))
        self.broken = np.zeros(self.anchors.shape[:2], bool)
        if not cut_rows:
            return
        # every iteration sweeps the same rows: each row's arrays cut out once (a small fleet's solve is these
        # slices and a dozen operations a row); a mask of None: the row is active in every vehicle of the solve
        self._normal = [[(j, np.ascontiguousarray(self.J[:, :, q, j]), np.ascontiguousarray(self.WJ[:, :, q, j]),
                          self.recip[:, q, j].copy(), self.target[:, q, j].copy(), _mask_or_none(self.active[:, q, j]))
                         for j in range(self.active.shape[2]) if self.active[:, q, j].any()] for q in range(self.Pm)]
        self._anchor = [[(m, _mask_or_none(self.anchors[:, q, m]),
                          [(np.ascontiguousarray(J[:, :, q, m]), np.ascontiguousarray(WJ[:, :, q, m]),
                            gain[:, q, m].copy()) for J, WJ, gain, _ in self.F])
                         for m in range(self.anchors.shape[2]) if self.anchors[:, q, m].any()] for q in range(self.Pm)]

    def sweep(self, x: np.ndarray, moved: np.ndarray, elapsed: float, min_separation: float) -> np.ndarray:
        """One pass over the rows, patch by patch: x (6, Vr) -> x."""
        # the normal rows' biases depend on the motion before the sweep, not on x: all of them at once
        separation = np.maximum(min_separation, self.error + dot6(self.J, moved[:, :, None, None])
                                - self.target * elapsed)
        biases = np.minimum(self.max_bias[:, None, None], self.bias_coefficient * separation)
        # so are the friction rows' (their anchors' errors and the motion along them)
        friction_biases = [(error + dot6(J, moved[:, :, None, None])) * self.friction_bias
                           for J, _, _, error in self.F]
        for q in range(self.Pm):
            x, total = self._normal_rows(x, q, biases)
            broken = np.zeros(x.shape[1], bool)
            for m, anchored, rows in self._anchor[q]:
                limit = self.scale[:, q] * self.static_friction[:, q] * total
                slide = self.scale[:, q] * self.dynamic_friction[:, q] * total
                wanted = []
                for k, (J, _, gain) in enumerate(rows):
                    wanted.append(self.friction[:, q, m, k] - gain * (dot6(J, x) + friction_biases[k][:, q, m]))
                magnitude = np.sqrt(wanted[0] ** 2 + wanted[1] ** 2)
                clamped = np.where(magnitude > limit, np.minimum(slide, magnitude), magnitude)
                # a patch without normal impulse (speculative, not reached) breaks: PhysX clamps any friction above
                # a zero limit and its float32 rows always ask for some (the NoBounce landing: the anchors made in
                # the air are made anew at the step after, in ovphysx at the origin too); here, exactly none
                slid = (magnitude > limit) | (limit <= 0.0)
                broken |= slid if anchored is None else anchored & slid
                ratio = np.where(magnitude > 0.0, clamped / np.where(magnitude > 0.0, magnitude, 1.0), 0.0)
                for k, (_, WJ, _) in enumerate(rows):
                    new = wanted[k] * ratio if anchored is None else np.where(anchored, wanted[k] * ratio, 0.0)
                    x = x + WJ * (new - self.friction[:, q, m, k])
                    self.friction[:, q, m, k] = new
            self.broken[:, q] = broken
        return x

    def _normal_rows(self, x: np.ndarray, q: int, biases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Patch q's normal rows, each driving J v to its target plus its bias (the separating speed it asks) with
        a total impulse >= 0: x -> x, and the patch's summed normal impulse (its friction's limit)."""
        total = np.zeros(x.shape[1])
        for j, J, WJ, recip, target, active in self._normal[q]:
            lam = recip * (biases[:, q, j] - (dot6(J, x) - target))
            old = self.impulse[:, q, j]
            new = np.maximum(old + lam, 0.0)
            if active is not None:
                new = np.where(active, new, 0.0)
            x = x + WJ * (new - old)
            self.impulse[:, q, j] = new
            total = total + new
        return x, total

    def prepare_pgs(self, dt: float) -> None:
        prepare_pgs_constants(self, dt)

    def sweep_pgs(self, x: np.ndarray, biased: bool, friction: bool) -> np.ndarray:
        """One PGS pass over the rows, patch by patch (DySolverConstraints.cpp solveContact): x (6, Vr) -> x.
        biased: a position iteration (the normal rows' biases; friction rows drive their anchors back); else a
        velocity iteration (PGS's conclude: only a separated row keeps its bias, friction rows have none).
        friction: whether the friction rows are solved in this pass. Each friction row is clamped on its own: past
        static friction times the patch's normal impulse, it takes at most dynamic friction times it, and the patch
        slides (`broken`)."""
        biases = self.pgs_bias if biased else np.minimum(self.pgs_bias, 0.0)
        for q in range(self.Pm):
            x, total = self._normal_rows(x, q, biases)
            if not friction:
                continue
            broken = np.zeros(x.shape[1], bool)
            limit = self.scale[:, q] * self.static_friction[:, q] * total
            slide = self.scale[:, q] * self.dynamic_friction[:, q] * total
            for m, anchored, rows in self._anchor[q]:
                for k, (J, WJ, gain) in enumerate(rows):
                    bias = self.pgs_friction_bias[k][:, q, m] if biased else 0.0
                    old = self.friction[:, q, m, k]
                    wanted = old - gain * (dot6(J, x) + bias)
                    clamp = np.abs(wanted) > limit
                    new = np.where(clamp, np.clip(wanted, -slide, slide), wanted)
                    if anchored is not None:
                        new = np.where(anchored, new, 0.0)
                    broken |= clamp if anchored is None else anchored & clamp
                    x = x + WJ * (new - old)
                    self.friction[:, q, m, k] = new
            self.broken[:, q] = broken
        return x


class PairContactRows:
    """The contact rows between vehicles of one solve (sim/contact/patches.py pair_rows, those of `vehicles`)
    as DyTGSContactPrep.cpp prepares and solves them for two dynamic bodies: as `StaticContactRows`, each row acting on
    both bodies (body 1 takes the opposite impulse, at its own arm: to the same point for a normal row, to its own
    anchor for a friction row), both bodies' mass and inertia in its response, their relative velocity in its target and
    first friction axis, the lower of their depenetration caps; a friction row drives back how far body 0's anchor has
    moved from body 1's (`anchor_error`, then the motion of the solve). Swept colour by colour: within a colour no
    vehicle is in two pairs, so a colour's pairs are one vectorised batch. `broken`: the patches whose friction was
    clamped in the last pass (`index`: each pair's index in pair_rows's)."""

    def __init__(self, p: SimParams, pairs: PairRows, vehicles: np.ndarray, R: np.ndarray, x: np.ndarray, dt: float,
                 iterations: int) -> None:
        h = dt / iterations
        self.p8 = min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / iterations))
        self.vehicles = vehicles
        self.body = (np.searchsorted(vehicles, pairs.body0), np.searchsorted(vehicles, pairs.body1))
        self.colours = [np.nonzero(pairs.colour == c)[0] for c in np.unique(pairs.colour)]
        self.active, self.anchors = pairs.point_active, pairs.anchor_active
        self.arm, self.normal = (pairs.arm0, pairs.arm1), pairs.normal  # for telemetry
        self.Pm = self.active.shape[1]
        self.index = pairs.index

        def jacobian(side, linear, arm):  # (3, Pp, ...) each -> J (6, Pp, ...), W J, unit response of body `side`
            v = vehicles[self.body[side]]
            extra = (None,) * (linear.ndim - 2)
            ang = vm.cross(arm, linear)
            Rk = R[:, :, self.body[side]][(slice(None),) * 3 + extra]
            moi = p.moi[:, v].astype(float)[(slice(None),) * 2 + extra]
            w_ang = vm.matvec(Rk, vm.matTvec(Rk, ang) / moi)
            w_lin = linear / p.mass[v].astype(float)[(slice(None),) + extra]
            unit = vm.dot(linear, w_lin) + vm.dot(ang, w_ang)
            return np.concatenate((linear, ang)), np.concatenate((w_lin, w_ang)), unit

        def relative(J0, J1, y):  # J0 y_0 - J1 y_1, y (6, Vr): the rows' relative velocity (or motion)
            extra = (None,) * (J0.ndim - 2)
            y0, y1 = y[:, self.body[0]][(slice(None),) * 2 + extra], y[:, self.body[1]][(slice(None),) * 2 + extra]
            return (J0 * y0).sum(axis=0) - (J1 * y1).sum(axis=0)

        normal = np.broadcast_to(self.normal[..., None], self.arm[0].shape)
        (self.J0, self.WJ0, u0), (self.J1, self.WJ1, u1) = (jacobian(k, normal, self.arm[k]) for k in (0, 1))
        u = u0 + u1
        ok = self.active & (u > 0.0)
        self.recip = np.where(ok, 1.0 / np.where(ok, u, 1.0), 0.0)
        vrel = relative(self.J0, self.J1, x)
        self.bias_coefficient, self.target, self.error = _normal_row_targets(pairs, vrel, h, dt, self.p8)
        depenetration = p.max_depenetration_velocity.astype(float)
        self.max_bias = np.minimum(depenetration[vehicles[self.body[0]]], depenetration[vehicles[self.body[1]]])
        self.impulse = np.zeros(self.active.shape)
        # friction: t0 along the bodies' relative tangential velocity (else a fixed axis square to n), t1 = n x t0
        t0, t1 = _friction_axes(self.normal, (x[:3, self.body[0]] - x[:3, self.body[1]])[:, :, None])
        self.F = []
        for t in (t0, t1):
            axis = np.broadcast_to(t[..., None], pairs.anchor_arm0.shape)
            (J0, WJ0, g0), (J1, WJ1, g1) = (jacobian(k, axis, getattr(pairs, f"anchor_arm{k}")) for k in (0, 1))
            ok = self.anchors & (g0 + g1 > 0.0)
            error = vm.dot(pairs.anchor_error, t[..., None])
            self.F.append((J0, WJ0, J1, WJ1, np.where(ok, self.p8 / np.where(ok, g0 + g1, 1.0), 0.0), error))
        self.friction_bias = FRICTION_BIAS_PER_SUBSTEP / h
        self.scale = np.where(self.anchors.sum(axis=2) == 2, 0.5, 1.0)
        self.static_friction, self.dynamic_friction = pairs.static_friction, pairs.dynamic_friction
        self.friction = np.zeros(self.anchors.shape + (2,))
        self.broken = np.zeros(self.anchors.shape[:2], bool)

    def sweep(self, x: np.ndarray, moved: np.ndarray, elapsed: float, min_separation: float) -> np.ndarray:
        """One pass over the pairs' rows, colour by colour, patch by patch within a pair: x (6, Vr) -> x."""
        x = x.astype(float)
        for sel in self.colours:
            b0, b1 = self.body[0][sel], self.body[1][sel]
            x0, x1, m0, m1 = x[:, b0], x[:, b1], moved[:, b0], moved[:, b1]

            def bias_of(q, j, J0, J1):  # the motion so far closes (or opens) the gap
                separation = np.maximum(min_separation, self.error[sel, q, j] + dot6(J0, m0) - dot6(J1, m1)
                                        - self.target[sel, q, j] * elapsed)
                return np.minimum(self.max_bias[sel], self.bias_coefficient[sel, q, j] * separation)

            for q in range(self.Pm):
                x0, x1, total = self._normal_rows(sel, q, x0, x1, bias_of)
                broken = np.zeros(len(sel), bool)
                for m in range(2):
                    anchored = self.anchors[sel, q, m]
                    if not anchored.any():
                        continue
                    limit = self.scale[sel, q] * self.static_friction[sel, q] * total
                    slide = self.scale[sel, q] * self.dynamic_friction[sel, q] * total
                    wanted = []
                    for k, (J0, _, J1, _, gain, error) in enumerate(self.F):
                        j0, j1 = J0[:, sel, q, m], J1[:, sel, q, m]
                        bias = (error[sel, q, m] + dot6(j0, m0) - dot6(j1, m1)) * self.friction_bias
                        wanted.append(self.friction[sel, q, m, k] - gain[sel, q, m] * (dot6(j0, x0) - dot6(j1, x1)
                                                                                     + bias))
                    magnitude = np.sqrt(wanted[0] ** 2 + wanted[1] ** 2)
                    clamped = np.where(magnitude > limit, np.minimum(slide, magnitude), magnitude)
                    broken |= anchored & ((magnitude > limit) | (limit <= 0.0))  # as StaticContactRows.sweep
                    ratio = np.where(magnitude > 0.0, clamped / np.where(magnitude > 0.0, magnitude, 1.0), 0.0)
                    for k, (_, WJ0, _, WJ1, _, _) in enumerate(self.F):
                        new = np.where(anchored, wanted[k] * ratio, 0.0)
                        change = new - self.friction[sel, q, m, k]
                        x0 = x0 + WJ0[:, sel, q, m] * change
                        x1 = x1 - WJ1[:, sel, q, m] * change
                        self.friction[sel, q, m, k] = new
                self.broken[sel, q] = broken
            x[:, b0], x[:, b1] = x0, x1
        return x

    def _normal_rows(self, sel: np.ndarray, q: int, x0: np.ndarray, x1: np.ndarray, bias_of):
        """Patch q's normal rows of the pairs `sel` (one colour), each driving the relative speed J0 v0 - J1 v1 to
        its target plus bias_of(q, j, J0, J1) with a total impulse >= 0: (x0, x1) -> (x0, x1), and the patch's
        summed normal impulse."""
        total = np.zeros(len(sel))
        for j in range(self.active.shape[2]):
            active = self.active[sel, q, j]
            if not active.any():
                continue
            J0, J1 = self.J0[:, sel, q, j], self.J1[:, sel, q, j]
            target = self.target[sel, q, j]
            bias = bias_of(q, j, J0, J1)
            lam = self.recip[sel, q, j] * (bias - (dot6(J0, x0) - dot6(J1, x1) - target))
            old = self.impulse[sel, q, j]
            new = np.where(active, np.maximum(old + lam, 0.0), 0.0)
            x0 = x0 + self.WJ0[:, sel, q, j] * (new - old)
            x1 = x1 - self.WJ1[:, sel, q, j] * (new - old)
            self.impulse[sel, q, j] = new
            total = total + new
        return x0, x1, total

    def prepare_pgs(self, dt: float) -> None:
        prepare_pgs_constants(self, dt)

    def sweep_pgs(self, x: np.ndarray, biased: bool, friction: bool) -> np.ndarray:
        """One PGS pass over the pairs' rows, colour by colour (see `StaticContactRows.sweep_pgs`): x (6, Vr) -> x."""
        x = x.astype(float)
        biases = self.pgs_bias if biased else np.minimum(self.pgs_bias, 0.0)
        for sel in self.colours:
            b0, b1 = self.body[0][sel], self.body[1][sel]
            x0, x1 = x[:, b0], x[:, b1]
            for q in range(self.Pm):
                x0, x1, total = self._normal_rows(sel, q, x0, x1, lambda q, j, J0, J1: biases[sel, q, j])
                if not friction:
                    continue
                broken = np.zeros(len(sel), bool)
                limit = self.scale[sel, q] * self.static_friction[sel, q] * total
                slide = self.scale[sel, q] * self.dynamic_friction[sel, q] * total
                for m in range(2):
                    anchored = self.anchors[sel, q, m]
                    if not anchored.any():
                        continue
                    for k, (J0, WJ0, J1, WJ1, gain, _) in enumerate(self.F):
                        bias = self.pgs_friction_bias[k][sel, q, m] if biased else 0.0
                        old = self.friction[sel, q, m, k]
                        wanted = old - gain[sel, q, m] * (dot6(J0[:, sel, q, m], x0) - dot6(J1[:, sel, q, m], x1)
                                                          + bias)
                        clamp = np.abs(wanted) > limit
                        new = np.where(anchored, np.where(clamp, np.clip(wanted, -slide, slide), wanted), 0.0)
                        broken |= anchored & clamp
                        x0 = x0 + WJ0[:, sel, q, m] * (new - old)
                        x1 = x1 - WJ1[:, sel, q, m] * (new - old)
                        self.friction[sel, q, m, k] = new
                self.broken[sel, q] = broken
            x[:, b0], x[:, b1] = x0, x1
        return x

    def views(self) -> list:
        """(vehicles, rows) per colour and side, as contact.telemetry reads them: each vehicle's points, arms from
        its own centre of mass, the normal towards it and the impulse it took."""
        out = []
        for sel in self.colours:
            for side, sign in ((0, 1.0), (1, -1.0)):
                out.append((self.vehicles[self.body[side][sel]], SimpleNamespace(
                    active=self.active[sel], arm=self.arm[side][:, sel], normal=sign * self.normal[:, sel],
                    impulse=self.impulse[sel])))
        return out
