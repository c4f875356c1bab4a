"""Pre-flight profiles: the checks that matter only in one runtime, each finding saying what will happen there.

    physxvehicle-usd validate --profile isaac-lab --profile omniverse assets/
    validate_stage(stage, profiles=["ovphysx"])

A profile adds its checks to the default ones. Where a default finding says in general terms what a profile check
says precisely for its runtime, the profile check supersedes it (the default finding is left out, so nothing is
said twice): the omniverse profile's KIT01 stands for A06, the ovphysx profile's per-attribute OVPHYSX_READING
warnings stand for A08's per-vehicle summary. A superseded finding's repair is carried over.

What each check claims comes from the runtime's source, cited beside it: NVIDIA-Omniverse/PhysX (omni.physx,
PhysX and vehicle2) and isaac-sim/IsaacLab.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from pxr import Usd

from ..description import StageDescription
from ..diagnostics import Diagnostic, Severity
from ..errors import InputError
from ..read.components import DEFAULT_CONTEXT
from ..read.readings import READING_CODE, ovphysx_divergences
from .checks import run_check

CheckFn = Callable[[Usd.Stage, StageDescription], Iterator[Diagnostic]]


@dataclass(frozen=True)
class ProfileCheck:
    check: CheckFn
    supersedes: str | None = None   # the default finding's code whose findings this check says precisely


@dataclass(frozen=True)
class Profile:
    name: str                       # as `validate --profile` takes it
    runtime: str                    # as findings name the runtime
    checks: tuple[ProfileCheck, ...]


def _finding(code: str, prim: str, message: str, prop: str | None = None, fix=None) -> Diagnostic:
    return Diagnostic(severity=Severity.WARNING, code=code, prim=prim, property=prop, message=message, fix=fix)


def _axis(token: str) -> str:
    """'posY' -> '+Y'."""
    return ("+" if token.startswith("pos") else "-") + token[3:]


def _default_context_text() -> str:
    return (f"{DEFAULT_CONTEXT['updateMode']} updates, vertical axis {_axis(DEFAULT_CONTEXT['verticalAxis'])}, "
            f"longitudinal axis {_axis(DEFAULT_CONTEXT['longitudinalAxis'])}")


def _frame_mismatch(d: StageDescription) -> str:
    """What the default vehicle frame does on this stage ('' where its vertical axis is the stage's up axis)."""
    if _axis(DEFAULT_CONTEXT["verticalAxis"])[1:] == d.stage.upAxis:
        return ""
    # vehicle2 orients the tire forces by the frame's longitudinal axis (VhTireFunctions.cpp, lngDir) and steers
    # about its vertical axis (PxVehicleFunctions.h, PxVehicleComputeRotation's yaw about vrtAxis)
    return (f"; this stage is {d.stage.upAxis}-up, so PhysX vehicle2 will orient the tire forces and steer the "
            "wheels in a frame whose vertical axis is not the stage's")


# --- omniverse ----------------------------------------------------------------------------------------------------

def check_kit_default_scene(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """KIT01: vehicles and no PhysicsScene. omni.physx adds a temporary PhysicsScene on the stage's first load
    (omni.physx usdLoad/LoadStage.cpp, "A temporary default PhysicsScene prim was added automatically"): a
    UsdPhysics scene with PhysxSceneAPI and nothing authored, so the schema fallbacks hold (physxSchema
    schema.usda: timeStepsPerSecond 60, solverType TGS, broadphaseType GPU, enableGPUDynamics true) and gravity is
    9.81 m/s^2 down the stage's up axis (UsdPhysics). That scene has no PhysxVehicleContextAPI: omni.physx logs an
    error when it creates each vehicle and uses VehicleContextDesc::setDefaultValues (usdInterface/UsdInterface.cpp,
    include/private/omni/physx/PhysxUsd.h), the reader's DEFAULT_CONTEXT."""
    if not d.vehicles or d.scenes:
        return
    yield _finding(
        "KIT01", "/",
        f"the stage has vehicles but no PhysicsScene: when Omniverse Kit loads it, omni.physx adds a temporary "
        f"PhysicsScene to the session layer (not saved with the asset) with gravity {d.units.default_gravity:g} "
        f"stage units/s^2 ({d.units.default_gravity * d.units.meters_per_unit:g} m/s^2) down the {d.stage.upAxis} "
        "axis, 60 steps per second, the TGS solver and GPU "
        f"dynamics; that scene has no PhysxVehicleContextAPI, so it logs an error for each vehicle and simulates it "
        f"with the default vehicle context ({_default_context_text()}){_frame_mismatch(d)}. Author a "
        "PhysicsScene with PhysxVehicleContextAPI to choose them")


# --- ovphysx ------------------------------------------------------------------------------------------------------

def check_ovphysx_readings(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """OVPHYSX_READING, as warnings: each way ovphysx 0.7 reads the stage differently from Omniverse Kit
    (read/readings.py), at the prim and property it concerns."""
    for divergence in ovphysx_divergences(stage, d):
        yield _finding(READING_CODE, divergence.prim, f"{divergence.how} (vehicle {divergence.vehicle})",
                       divergence.property)


# --- isaac-lab ----------------------------------------------------------------------------------------------------

# What vehicle2 calls on the chassis actor every step, by update mode (physx/source/physxvehicle/src/physxActor/
# VhPhysXActorFunctions.cpp, PxVehicleWriteRigidBodyStateToPhysXActor)
_ACTOR_WRITES = {"velocityChange": "setLinearVelocity and setAngularVelocity",
                 "acceleration": "addForce and addTorque"}


def check_isaac_gpu_pipeline(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """ISAAC01, per vehicle: Isaac Lab's GPU pipeline refuses the vehicle's writes to its chassis.

    With a cuda device, Isaac Lab sets /physics/suppressReadback and GPU dynamics (isaaclab_physx
    physics/physx_manager.py, PhysxManager._configure_physics); omni.physx then creates the scene with
    PxSceneFlag::eENABLE_DIRECT_GPU_API (omni.physx PhysXScene.cpp, createPhysicsScene), under which PhysX refuses
    setLinearVelocity, setAngularVelocity, addForce and addTorque on a rigid dynamic ("it is illegal to call this
    method if PxSceneFlag::eENABLE_DIRECT_GPU_API is enabled", physx/source/physx/src/NpRigidDynamic.cpp) and
    reads no state back to the actor (PxSceneDesc.h), which vehicle2 reads the chassis pose and velocities from
    (PxVehicleReadRigidBodyStateFromPhysXActor)."""
    for path in sorted(d.vehicles):
        context = d.vehicle_context(path)
        mode = (context.get("updateMode") if context is not None else None) or DEFAULT_CONTEXT["updateMode"]
        writes = _ACTOR_WRITES.get(mode, " and ".join(_ACTOR_WRITES.values()))
        yield _finding(
            "ISAAC01", path,
            f"in Isaac Lab's GPU pipeline (a cuda sim device) this vehicle will not drive: Isaac Lab turns on "
            f"/physics/suppressReadback with GPU dynamics, omni.physx then creates the scene with PhysX's direct-GPU "
            f"API, and PhysX refuses the {writes} calls by which vehicle2 moves the chassis each step ({mode} "
            "update mode) and reads no pose or velocity back for it. Simulate vehicles with device='cpu'")


def check_isaac_scene(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """ISAAC02: Isaac Lab simulates its own physics scene, without this stage's vehicle context.

    Isaac Lab's SimulationContext deletes every PhysicsScene prim of its stage and defines its own at
    cfg.physics_prim_path with cfg.gravity, on a Z-up stage in metres (isaaclab/sim/simulation_context.py,
    SimulationContext._init_usd_physics_scene); a spawner that references an asset brings its default prim. A scene
    without PhysxVehicleContextAPI gets omni.physx's default vehicle context (as KIT01)."""
    if not d.vehicles:
        return
    authored = sorted(path for path, scene in d.scenes.items() if scene.context is not None)
    default_prim = stage.GetDefaultPrim()
    outside = [p for p in authored if not default_prim or not p.startswith(str(default_prim.GetPath()) + "/")]
    if authored:
        lost = (f"the vehicle context authored here (PhysxVehicleContextAPI on {', '.join(authored)}) will not be on "
                "the scene Isaac Lab simulates: its SimulationContext deletes every PhysicsScene prim of its stage "
                "and defines its own at sim.cfg.physics_prim_path")
        if default_prim and outside:
            lost += (f", and a spawner referencing this file brings its default prim {default_prim.GetPath()}, "
                     f"without {', '.join(outside)}")
    else:
        lost = ("no vehicle context is authored here, and Isaac Lab's SimulationContext defines its own physics "
                "scene at sim.cfg.physics_prim_path without one")
    mismatch = _axis(DEFAULT_CONTEXT["verticalAxis"]) != "+Z"
    yield _finding(
        "ISAAC02", "/",
        f"{lost}; omni.physx then logs an error for each vehicle and uses the default vehicle context "
        f"({_default_context_text()})"
        + (", whose vertical axis is not the Z up axis of Isaac Lab's stage" if mismatch else "")
        + ". After creating the SimulationContext, apply PhysxVehicleContextAPI to the prim at "
        "sim.cfg.physics_prim_path with verticalAxis posZ and the vehicles' longitudinal axis")


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("isaac-lab", "Isaac Lab", (ProfileCheck(check_isaac_gpu_pipeline), ProfileCheck(check_isaac_scene))),
    Profile("ovphysx", "ovphysx 0.7", (ProfileCheck(check_ovphysx_readings, supersedes="A08"),)),
    Profile("omniverse", "Omniverse Kit", (ProfileCheck(check_kit_default_scene, supersedes="A06"),)),
)}


def profile_checks(names: Iterable[str]) -> list[ProfileCheck]:
    """The checks of the named profiles, each once, in the order named. An unknown name is an InputError."""
    checks: list[ProfileCheck] = []
    for name in names:
        profile = PROFILES.get(name)
        if profile is None:
            raise InputError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}")
        checks += [c for c in profile.checks if c not in checks]
    return checks


def with_profiles(stage: Usd.Stage, d: StageDescription, findings: list[Diagnostic],
                  names: Iterable[str]) -> list[Diagnostic]:
    """`findings` (the default ones) with the named profiles' findings added and the findings they supersede left
    out. A superseding finding takes over the repair of the finding it stands for, where that is the only finding
    of its code and the superseding one has no repair of its own."""
    checks = profile_checks(names)
    if not checks:
        return findings
    superseded = {c.supersedes for c in checks if c.supersedes}
    by_code: dict[str, list[Diagnostic]] = {}
    for f in findings:
        if f.code in superseded:
            by_code.setdefault(f.code, []).append(f)
    repairs = {code: found[0].fix for code, found in by_code.items() if len(found) == 1 and found[0].fix is not None}
    kept = [f for f in findings if f.code not in superseded]
    for profile_check in checks:
        for finding in run_check(profile_check.check, stage, d):
            fix = repairs.get(profile_check.supersedes) if finding.fix is None else None
            kept.append(finding.model_copy(update={"fix": fix}) if fix is not None else finding)
    return kept
