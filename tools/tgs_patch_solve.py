"""Our contact solve of one vehicle at one step against a scalar transcription of PhysX's: the rows `rigid_body.
_ContactRows` solved from the same inputs as PhysX 5.8's DyTGSContactPrep.cpp (the mirror's release/110.0, which ovphysx
0.7 follows; main's physx/ is 5.6.1) writes them (constructContactConstraintStep,
setupFinalizeSolverConstraints) and solves them (solveDynamicContactsStep, solveContact: per patch its normal rows,
then each anchor's two friction rows clamped together against the patch's summed normal impulse), with DyTGSDynamics.cpp
solveIsland's iterations (each position iteration integrated over dt / n, then the velocity iterations with the
separation floored at 0). Written from the C++ line by line and independently of `_ContactRows`, so that a
disagreement between the two is ours, and an agreement says a difference from ovphysx lies outside the solve.

    python3 tools/tgs_patch_solve.py STAGE VEHICLE STEP

Steps count from 1, as in tools/physx_contacts.py (whose output, for the same stage and step, is PhysX's). The stage's
authored controls drive the car. Only the static contacts of a vehicle whose own constraint rows (sticky tire,
suspension limit) are idle that step are transcribed; contacts between vehicles are not.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DT = 1.0 / 60.0


def transcribed_solve(capture: dict) -> dict:
    """PhysX's solve of vehicle row 0 of the captured `_ContactRows` inputs: final body velocity, per patch the
    normal impulses of its points and the friction impulse (a world vector) of each anchor."""
    P, x, R = capture["patches"], capture["x"][:, 0].astype(float), capture["R"][:, :, 0].astype(float)
    n_pos, n_vel, dt = capture["iterations"], capture["velocity_iterations"], capture["dt"]
    h = dt / n_pos
    mass, moi = float(capture["mass"]), capture["moi"].astype(float)
    # PxTGSSolverBodyTxInertia: sqrtInvInertia in world; the solver's angular state is sqrt(I) w
    inv_inertia = R @ np.diag(1.0 / moi) @ R.T
    values, vectors = np.linalg.eigh(inv_inertia)
    sqrt_inv = vectors @ np.diag(np.sqrt(values)) @ vectors.T
    lin, ang = x[:3].copy(), np.linalg.inv(sqrt_inv) @ x[3:]
    scale = min(0.8, 2.0 * np.sqrt(1.0 / n_pos))  # p8: min(0.8, biasCoefficient)
    max_pen_bias = float(capture["max_depenetration_velocity"])
    patches = []
    for q in range(P["point_active"].shape[1]):
        on = P["point_active"][0, q]
        if not on.any():
            continue
        normal = P["normal"][:, 0, q]
        points = []
        for arm, separation in zip(P["arm"][:, 0, q].T[on], P["separation"][0, q][on]):
            raXnI = sqrt_inv @ np.cross(arm, normal)  # constructContactConstraintStep
            unit = 1.0 / mass + raXnI @ raXnI
            vrel = lin @ normal + np.cross(arm, normal) @ x[3:]
            penetration = separation - P["rest"][0, q]
            e = P["restitution"][0, q]
            bouncing = e > 0.0 and -vrel > P["bounce_threshold"][0] and -vrel > penetration / dt
            target = -vrel * e if bouncing else 0.0
            error = penetration + (target * (dt + penetration / vrel) if bouncing else 0.0)
            coefficient = -(1.0 / h if penetration > 0.0 else scale / h)
            points.append({"raXnI": raXnI, "recip": 1.0 / unit, "target": target, "error": error,
                           "coefficient": coefficient, "impulse": 0.0})
        v_t = lin - normal * (normal @ lin)  # setupFinalizeSolverConstraints: t0 along the tangential velocity
        fallback = (np.array([0.0, -normal[2], normal[1]]) if abs(normal[0]) < 0.70710678
                    else np.array([-normal[1], normal[0], 0.0]))
        t0 = v_t if v_t @ v_t > 1e-4 else fallback
        t0 = t0 / np.linalg.norm(t0)
        t1 = np.cross(normal, t0)
        t1 = t1 / np.linalg.norm(t1)
        anchors = []
        for arm, error in zip(P["anchor_arm"][:, 0, q].T[P["anchor_active"][0, q]],
                              P["anchor_error"][:, 0, q].T[P["anchor_active"][0, q]]):
            rows = []
            for t in (t0, t1):
                raXnI = sqrt_inv @ np.cross(arm, t)
                rows.append({"t": t, "raXnI": raXnI, "gain": scale / (1.0 / mass + raXnI @ raXnI),
                             "error": error @ t, "impulse": 0.0})
            anchors.append(rows)
        patches.append({"normal": normal, "points": points, "anchors": anchors,
                        "share": 0.5 if len(anchors) == 2 else 1.0,  # frictionScale
                        "static": P["static_friction"][0, q], "dynamic": P["dynamic_friction"][0, q]})
    moved_lin, moved_ang = np.zeros(3), np.zeros(3)

    def solve(elapsed: float, min_separation: float) -> None:  # solveContact, patch by patch
        nonlocal lin, ang
        for patch in patches:
            normal, total = patch["normal"], 0.0
            for c in patch["points"]:  # solveDynamicContactsStep
                separation = max(min_separation, c["error"] + moved_lin @ normal + c["raXnI"] @ moved_ang
                                 - c["target"] * elapsed)
                bias = min(max_pen_bias, c["coefficient"] * separation)
                velocity = lin @ normal + ang @ c["raXnI"]
                new = max(c["impulse"] + c["recip"] * (bias - (velocity - c["target"])), 0.0)
                lin, ang = lin + normal * (new - c["impulse"]) / mass, ang + c["raXnI"] * (new - c["impulse"])
                c["impulse"] = new
                total += new
            for rows in patch["anchors"]:  # the friction pairs
                # frictionBiasScale = invDt (5.8; 5.6.1 had invDt * p8)
                wanted = [r["impulse"] - r["gain"] * ((r["error"] + r["t"] @ moved_lin + r["raXnI"] @ moved_ang) / h
                                                      + lin @ r["t"] + ang @ r["raXnI"]) for r in rows]
                magnitude = float(np.hypot(*wanted))
                limit = patch["share"] * total
                clamped = min(limit * patch["dynamic"], magnitude) if magnitude > limit * patch["static"] else magnitude
                ratio = clamped / magnitude if magnitude > 0.0 else 0.0
                for r, w in zip(rows, wanted):
                    change = w * ratio - r["impulse"]
                    lin, ang = lin + r["t"] * change / mass, ang + r["raXnI"] * change
                    r["impulse"] = w * ratio

    elapsed = 0.0
    for _ in range(n_pos):
        solve(elapsed, -np.inf)
        moved_lin, moved_ang = moved_lin + lin * h, moved_ang + ang * h
        elapsed += h
    for _ in range(n_vel):
        solve(elapsed, 0.0)
    return {"linear": lin, "angular": sqrt_inv @ ang,
            "normal": [[c["impulse"] for c in patch["points"]] for patch in patches],
            "friction": [[sum(r["impulse"] * r["t"] for r in rows) for rows in patch["anchors"]]
                         for patch in patches]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage")
    parser.add_argument("vehicle", help="the vehicle's prim path")
    parser.add_argument("step", type=int, help="the step to solve (from 1)")
    parser.add_argument("--dt", type=float, default=DT)
    args = parser.parse_args(argv)
    from physxvehicle_usd.read import read_stage
    from physxvehicle_usd.sim import Simulator, rigid_body
    from physxvehicle_usd.sim.pipeline import StepOptions

    captured: dict = {}

    class Capturing(rigid_body._ContactRows):
        def __init__(self, p, patches, vehicles, R, x, dt, iterations, dtype):
            captured.update(patches=patches, x=x, R=R, dt=dt, iterations=iterations,
                            velocity_iterations=int(p.velocity_iterations[vehicles][0]), mass=p.mass[vehicles][0],
                            moi=p.moi[:, vehicles][:, 0], max_depenetration_velocity=p.max_depenetration_velocity[
                                vehicles][0])
            super().__init__(p, patches, vehicles, R, x, dt, iterations, dtype)

    solve_rows = rigid_body._solve_rows_tgs

    def counting(p, s, rows, *rest, **named):
        captured["vehicle_rows"] = int((rows["active"]).sum())
        return solve_rows(p, s, rows, *rest, **named)

    rigid_body._ContactRows, rigid_body._solve_rows_tgs = Capturing, counting
    sim = Simulator.from_description(read_stage(args.stage), args.dt, [args.vehicle],
                                     options=StepOptions(compiled=False))
    for _ in range(args.step):
        captured.clear()
        sim.step()
    if "patches" not in captured:
        print(f"{args.vehicle}: no static contacts at step {args.step}")
        return 1
    if captured["vehicle_rows"]:
        print(f"{args.vehicle}: {captured['vehicle_rows']} constraint rows of its own at step {args.step}, which the "
              "transcription leaves out")
        return 1
    ours = next(rows for _, rows in sim.state.contacts["solved"] if isinstance(rows, Capturing))
    transcribed = transcribed_solve(captured)
    s = sim.state
    print(f"step {args.step}: ours        v {np.round(s.linear_velocity[:, 0], 5)} w "
          f"{np.round(s.angular_velocity[:, 0], 5)}")
    print(f"{'':8s}transcribed v {np.round(transcribed['linear'], 5)} w {np.round(transcribed['angular'], 5)}")
    for q, (normal, friction) in enumerate(zip(transcribed["normal"], transcribed["friction"])):
        print(f"  patch {q}: normal force ours {np.round(ours.impulse[0, q][:len(normal)] / args.dt, 1)} "
              f"transcribed {np.round(np.array(normal) / args.dt, 1)}")
        for m, f in enumerate(friction):
            mine = sum(ours.friction[0, q, m, k] * ours.F[k][0][:3, 0, q, m] for k in range(2))
            print(f"    anchor {m}: friction force ours {np.round(mine / args.dt, 1)} transcribed "
                  f"{np.round(f / args.dt, 1)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
