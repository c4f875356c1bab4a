"""Stage description -> vehicle2 parameter records, as Omni's VehicleGenerator does it.

`build_vehicle_params(description, vehicle_path)` moves the attachment frames into the rigid-body
(centre-of-mass, principal-axes) frame, lays the gear ratios out as PhysX expects (reverse, neutral,
forwards), maps the autobox ratios onto PhysX gear indices, builds the brake/steer/throttle command
responses (with nonlinear tables), the differentials and the per-wheel suspension/tire/wheel params.
Every value arrives resolved in the description (sentinels, defaults, sprung masses, rest loads); this adds
no default of its own. Quaternion and vector arithmetic is the simulator's (sim/vecmath.py) on small arrays.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ...description import Block, StageDescription
from ...json_values import canonical_value
from ...sim import vecmath as vm
from .params import (
    AUTOMATIC_GEAR,
    AXIS_VECTORS,
    DRIVE_BASIC,
    DRIVE_NONE,
    DRIVE_STANDARD,
    MAX_NB_GEARS,
    MAX_NB_WHEELS,
    MAX_TORQUE_CURVE_POINTS,
    NEUTRAL_GEAR,
    QUERY_RAYCAST,
    QUERY_SWEEP,
    WHEEL_ANGLE_THRESHOLD_SPEED,
    AckermannParams,
    AutoboxParams,
    ClutchParams,
    CommandResponseParams,
    ComplianceParams,
    ContextParams,
    ControlValues,
    EngineParams,
    FrameParams,
    FrictionTableParams,
    GearboxParams,
    MultiWheelDifferentialParams,
    NonlinearResponseParams,
    Quat,
    RigidBodyInitialState,
    RigidBodyParams,
    ScaleParams,
    SuspensionForceParams,
    SuspensionParams,
    SuspensionStateCalculationParams,
    TankDifferentialParams,
    TireForceParams,
    TireSlipParams,
    TireStickyParams,
    Vec3,
    VehicleParams,
    VehicleParamsError,
    WheelComponentParams,
    WheelParams,
)


def _vec(v: Any, n: int = 3) -> tuple[float, ...]:
    out = tuple(float(c) for c in v)
    if len(out) != n:
        raise VehicleParamsError(f"expected {n} components, got {len(out)}: {v!r}")
    return out


def _tuple(a: np.ndarray) -> tuple[float, ...]:
    return tuple(float(c) for c in a)


IDENTITY: Quat = (1.0, 0.0, 0.0, 0.0)


# Most frames are unrotated: the identity skips numpy on four-element arrays (the same values, up to the sign of a
# zero), which would otherwise be most of the cost of building a fleet.
def _quat_normalize(q: Sequence[float]) -> Quat:
    if tuple(q) == IDENTITY:
        return IDENTITY
    q = np.asarray(q, dtype=float)
    if not q.any():
        return IDENTITY
    return _tuple(vm.quat_normalize(q))  # type: ignore[return-value]


def _quat_mul(a: Sequence[float], b: Sequence[float]) -> Quat:
    if tuple(a) == IDENTITY:
        return tuple(b)  # type: ignore[return-value]
    return _tuple(vm.quat_mul(np.asarray(a, dtype=float), np.asarray(b, dtype=float)))  # type: ignore[return-value]


def _quat_rotate(q: Sequence[float], v: Sequence[float]) -> Vec3:
    """q (0, v) q*: the rotation as a quaternion product (not a matrix), as PhysX's PxQuat::rotate rounds."""
    if tuple(q) == IDENTITY:
        return tuple(v)  # type: ignore[return-value]
    q = np.asarray(q, dtype=float)
    r = vm.quat_mul(vm.quat_mul(q, np.array([0.0, *v])), vm.quat_conj(q))
    return _tuple(r[1:])  # type: ignore[return-value]


def _value(block: Block | None, key: str) -> Any:
    """A resolved value of a description block, as the description's canonical number (float32 precision, as USD
    stores it and `convert` prints it). The reader resolves every property; a missing one is a reader defect."""
    if block is None or key not in block:
        where = block.path if block is not None else "a missing component"
        raise VehicleParamsError(f"{where}: the description has no resolved {key!r}")
    return canonical_value(block[key])


def _optional(block: Block | None, key: str, absent: Any) -> Any:
    """A value whose absence has a meaning of its own (a deprecated attribute not authored, a component not applied)."""
    if block is None or block.get(key) is None:
        return absent
    return canonical_value(block[key])


def _axis(token: str) -> Vec3:
    try:
        return AXIS_VECTORS[token]
    except KeyError:
        raise VehicleParamsError(f"unknown axis token {token!r} (expected posX..negZ)") from None


def _nonlinear(block: Block | None) -> NonlinearResponseParams:
    """Omni's USD form (start index per command value, (speed, response) pairs) -> per-command curves."""
    if not block:
        return NonlinearResponseParams()
    commands = [float(c) for c in _value(block, "commandValues")]
    pairs = [tuple(float(x) for x in p) for p in _value(block, "speedResponses")]
    starts = [int(s) for s in _value(block, "speedResponsesPerCommandValue")]
    if not commands:
        return NonlinearResponseParams()
    if len(starts) != len(commands):
        raise VehicleParamsError("nonlinear command response: speedResponsesPerCommandValue and commandValues differ in length")
    curves = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(pairs)
        curve = tuple((p[0], p[1]) for p in pairs[start:end])
        if not curve:
            raise VehicleParamsError(f"nonlinear command response: command value {k} has no speed responses")
        curves.append(curve)
    return NonlinearResponseParams(tuple(commands), tuple(curves))


def _listed_multipliers(n_wheels: int, wheels: Sequence[int], multipliers: Sequence[float]) -> tuple[float, ...]:
    """Omni's rule: listed wheels get multipliers[j] (or 1), unlisted wheels 0; an empty list means all wheels x 1."""
    out = [0.0] * n_wheels
    if not wheels:
        return tuple([1.0] * n_wheels)
    for j, w in enumerate(wheels):
        if not 0 <= int(w) < n_wheels:
            raise VehicleParamsError(f"wheel index {w} out of range (vehicle has {n_wheels} wheels)")
        out[int(w)] = float(multipliers[j]) if multipliers else 1.0
    return tuple(out)


def _ratio_list(n_wheels: int, wheels: Sequence[int], ratios: Sequence[float]) -> tuple[float, ...]:
    """Differential ratios: given value or 1/len(wheels) for listed wheels, 0 for the others."""
    out = [0.0] * n_wheels
    n = len(wheels)
    for j, w in enumerate(wheels):
        if not 0 <= int(w) < n_wheels:
            raise VehicleParamsError(f"differential wheel index {w} out of range (vehicle has {n_wheels} wheels)")
        out[int(w)] = float(ratios[j]) if ratios else 1.0 / n
    return tuple(out)


def _gear_to_physx(usd_gear: int) -> int:
    return AUTOMATIC_GEAR if int(usd_gear) == AUTOMATIC_GEAR else int(usd_gear) + 1


def _friction_table(description: StageDescription, path: str | None) -> FrictionTableParams:
    """The tire's friction table; a tire that names none (or one the reader could not read, which it said) has the
    default table the reader resolved."""
    table = description.tireFrictionTables.get(path) if path else None
    table = table if table is not None else description.defaultFrictionTable
    if table is None:
        raise VehicleParamsError("a tire names no friction table and the description has no default table")
    materials = tuple(str(m) for m in _value(table, "groundMaterials"))
    values = tuple(float(x) for x in _value(table, "frictionValues"))
    return FrictionTableParams(materials, values[: len(materials)], float(_value(table, "defaultFrictionValue")))


def _orientation(value: Any) -> Quat:
    return _quat_normalize(_vec(value, 4))


def _angular_velocity(value: Any) -> Vec3:
    return tuple(math.radians(c) for c in _vec(value))  # type: ignore[return-value]  # USD deg/s -> rad/s


def rigid_body_initial_state(rb: Block, converted: dict[tuple[str, int], tuple[Any, Any]] | None = None
                             ) -> RigidBodyInitialState:
    """The actor's pose and velocities at creation, from the description's rigid-body block.

    converted: where many blocks are built at once, each conversion of an orientation or velocity (a tuple: it cannot
    change) by (key, the id of the tuple), kept with the tuple, so only the same object finds it (a fleet's copies
    share theirs)."""
    def once(key: str, convert: Callable[[Any], Any]) -> Any:
        item = rb.values.get(key) if converted is not None else None
        if item is None or type(item.value) is not tuple:
            return convert(_value(rb, key))
        found = converted.get((key, id(item.value)))
        if found is not None and found[0] is item.value:
            return found[1]
        out = converted[(key, id(item.value))] = (item.value, convert(_value(rb, key)))
        return out[1]

    return RigidBodyInitialState(
        position=_vec(_value(rb, "position")),
        orientation=once("orientation", _orientation),
        linear_velocity=once("linearVelocity", _vec),
        angular_velocity=once("angularVelocity", _angular_velocity),
    )


def build_vehicle_params(description: StageDescription, vehicle_path: str) -> VehicleParams:
    """Build the vehicle2 parameters of one vehicle of a stage description (the reader's typed records).

    Every value arrives resolved (sentinels replaced by the parser's defaults, scaled to the stage's units, with
    provenance); this adds no default of its own, only the layout and frame changes VehicleGenerator makes."""
    v = description.vehicles.get(vehicle_path)
    if v is None:
        raise VehicleParamsError(f"no vehicle {vehicle_path!r} in the description")
    veh, rb = v.vehicle, v.rigidBody
    wheels_desc = sorted(v.wheels, key=lambda w: w.index)
    n = len(wheels_desc)
    if n == 0:
        raise VehicleParamsError(f"vehicle {vehicle_path} has no wheel attachments")
    if n > MAX_NB_WHEELS:
        raise VehicleParamsError(f"vehicle {vehicle_path} has {n} wheels; PhysX allows at most {MAX_NB_WHEELS}")

    # --- frame, scale, gravity
    units = description.units
    length_scale = units.length_scale
    scene = description.scene_of(vehicle_path)  # its own, or the default scene the reader resolved
    if scene is None:
        raise VehicleParamsError(f"vehicle {vehicle_path} has no physics scene and the description no default scene")
    context = v.context if v.context is not None and v.context.values else scene.context
    vrt = _axis(_value(context, "verticalAxis"))
    lng = _axis(_value(context, "longitudinalAxis"))
    lat = _tuple(np.cross(vrt, lng))  # Omni always sets e_s = e_u x e_f
    frame = FrameParams(lng_axis=lng, lat_axis=lat, vrt_axis=vrt)
    g_dir = _vec(_value(scene.settings, "gravityDirection"))
    g_mag = float(_value(scene.settings, "gravityMagnitude"))
    gravity = tuple(c * g_mag for c in g_dir)
    ctx = ContextParams(
        gravity=gravity,  # type: ignore[arg-type]
        update_mode="velocityChange" if _value(context, "updateMode") == "velocityChange" else "acceleration",
        wheel_angle_threshold_speed=WHEEL_ANGLE_THRESHOLD_SPEED * length_scale,
        substep_threshold_speed=float(_value(veh, "subStepThresholdLongitudinalSpeed")),
        low_speed_substeps=min(255, max(1, int(_value(veh, "lowForwardSpeedSubStepCount")))),
        high_speed_substeps=min(255, max(1, int(_value(veh, "highForwardSpeedSubStepCount")))),
    )

    # --- rigid body and the CoM frame C (actor frame -> body frame)
    scale = _vec(_value(rb, "scale"))
    com = _vec(_value(rb, "centerOfMass"))
    com_p = (com[0] * scale[0], com[1] * scale[1], com[2] * scale[2])  # PhysX has no scale: bake it in
    com_q = _quat_normalize(_vec(_value(rb, "principalAxes"), 4))
    mass = float(_value(rb, "mass"))
    if not mass > 0.0:
        raise VehicleParamsError(f"vehicle {vehicle_path}: rigid-body mass must be > 0 (got {mass})")
    rigid_body = RigidBodyParams(mass=mass, moi=_vec(_value(rb, "diagonalInertia")), com_position=com_p, com_orientation=com_q)
    initial_state = rigid_body_initial_state(rb)
    ref_is_com = bool(_value(veh, "referenceFrameIsCenterOfMass"))
    com_q_inv = _tuple(vm.quat_conj(np.asarray(com_q)))

    def to_body_point(p: Sequence[float]) -> Vec3:
        scaled = (p[0] * scale[0], p[1] * scale[1], p[2] * scale[2])
        if ref_is_com:
            return scaled
        return _quat_rotate(com_q_inv, (scaled[0] - com_p[0], scaled[1] - com_p[1], scaled[2] - com_p[2]))

    def to_body_dir(d: Sequence[float]) -> Vec3:
        return tuple(d) if ref_is_com else _quat_rotate(com_q_inv, d)  # type: ignore[return-value]

    def to_body_rot(q: Sequence[float]) -> Quat:
        return tuple(q) if ref_is_com else _quat_mul(com_q_inv, q)  # type: ignore[return-value]

    def scaled_points(points: Any) -> tuple[tuple[float, float, float, float], ...]:
        return tuple((float(p[0]), float(p[1]) * scale[0], float(p[2]) * scale[1], float(p[3]) * scale[2]) for p in points)

    # --- wheels
    wheel_params = []
    for wd in wheels_desc:
        att, whl, tire, susp, comp = wd.attachment, wd.wheel, wd.tire, wd.suspension, wd.compliance
        a_p = to_body_point(_vec(_value(att, "suspensionFramePosition")))
        a_q = to_body_rot(_quat_normalize(_vec(_value(att, "suspensionFrameOrientation"), 4)))
        d = to_body_dir(_vec(_value(att, "suspensionTravelDirection")))
        d_len = math.sqrt(sum(c * c for c in d))
        d = tuple(c / d_len for c in d) if d_len > 0 else d
        w_p = _vec(_value(att, "wheelFramePosition"))
        w_p = (w_p[0] * scale[0], w_p[1] * scale[1], w_p[2] * scale[2])
        w_q = _quat_normalize(_vec(_value(att, "wheelFrameOrientation"), 4))
        travel = float(_value(susp, "travelDistance"))
        if not travel > 0.0:
            raise VehicleParamsError(f"wheel {wd.path}: travelDistance must be > 0 (got {travel})")
        graph = _vec(_value(tire, "lateralStiffnessGraph"), 2)
        fvs = [tuple(float(x) for x in p) for p in _value(tire, "frictionVsSlipGraph")]
        if len(fvs) != 3:
            raise VehicleParamsError(f"wheel {wd.path}: frictionVsSlipGraph needs 3 points")
        wheel_params.append(WheelComponentParams(
            path=wd.path, description=wd,
            wheel=WheelParams(
                radius=float(_value(whl, "radius")), half_width=0.5 * float(_value(whl, "width")),
                mass=float(_value(whl, "mass")), moi=float(_value(whl, "moi")), damping_rate=float(_value(whl, "dampingRate")),
            ),
            suspension=SuspensionParams(
                attachment_position=a_p, attachment_orientation=a_q, travel_direction=d,  # type: ignore[arg-type]
                travel_distance=travel, wheel_attachment_position=w_p, wheel_attachment_orientation=w_q,
            ),
            suspension_force=SuspensionForceParams(
                stiffness=float(_value(susp, "springStrength")), damping=float(_value(susp, "springDamperRate")),
                sprung_mass=float(_value(susp, "sprungMass")),
            ),
            compliance=ComplianceParams(
                wheel_toe_angle=tuple((float(p[0]), float(p[1])) for p in _value(comp, "wheelToeAngle")),
                wheel_camber_angle=tuple((float(p[0]), float(p[1])) for p in _value(comp, "wheelCamberAngle")),
                suspension_force_app_point=scaled_points(_value(comp, "suspensionForceAppPoint")),
                tire_force_app_point=scaled_points(_value(comp, "tireForceAppPoint")),
            ),
            tire=TireForceParams(
                lat_stiff_x=graph[0], lat_stiff_y=graph[1], long_stiff=float(_value(tire, "longitudinalStiffness")),
                camber_stiff=float(_value(tire, "camberStiffness")),
                friction_vs_slip=tuple(fvs), rest_load=float(_value(tire, "restLoad")),  # type: ignore[arg-type]
            ),
            friction_table=_friction_table(description, _optional(tire, "frictionTable", None)),
        ))

    # --- command responses
    ncr = v.nonlinearCommandResponses
    brakes = []
    for name in ("brakes0", "brakes1"):
        b = v.brakes.get(name)
        if b is not None:
            brakes.append(CommandResponseParams(
                max_response=float(_value(b, "maxBrakeTorque")),
                wheel_multipliers=_listed_multipliers(n, _value(b, "wheels"), _value(b, "torqueMultipliers")),
                nonlinear=_nonlinear(ncr.get(name)),
            ))
        else:  # a missing system brakes nothing (its command is dropped)
            brakes.append(CommandResponseParams(0.0, tuple([0.0] * n)))
    steering, ack = v.steering, v.ackermannSteering
    ackermann = None
    if steering is not None:
        steer = CommandResponseParams(
            max_response=float(_value(steering, "maxSteerAngle")),
            wheel_multipliers=_listed_multipliers(n, _value(steering, "wheels"), _value(steering, "angleMultipliers")),
            nonlinear=_nonlinear(ncr.get("steer")),
        )
    elif ack is not None:
        w0, w1 = int(_value(ack, "wheel0")), int(_value(ack, "wheel1"))
        mult = [0.0] * n
        mult[w0] = mult[w1] = 1.0
        steer = CommandResponseParams(float(_value(ack, "maxSteerAngle")), tuple(mult), _nonlinear(ncr.get("steer")))
        ackermann = AckermannParams(
            wheel_ids=(w0, w1), wheel_base=float(_value(ack, "wheelBase")), track_width=float(_value(ack, "trackWidth")),
            strength=float(_value(ack, "strength")),
        )
    else:
        steer = CommandResponseParams(0.0, tuple([0.0] * n))

    # --- drive
    drive, mwd, tank = v.drive, v.multiWheelDifferential, v.tankDifferential
    # the deprecated `driven` flag, where a wheel attachment still authors it and no differential lists wheels
    driven_flags = [bool(_optional(wd.attachment, "driven", False)) for wd in wheels_desc]
    throttle = engine = gearbox = clutch = autobox = None
    multi = tank_diff = None
    initial_gear = 0
    if drive is None:
        drive_type = DRIVE_NONE
    elif drive.type == "basic":
        drive_type = DRIVE_BASIC
        if mwd is not None:
            mult = _ratio_list(n, _value(mwd, "wheels"), _value(mwd, "torqueRatios"))
        else:  # deprecated `driven`: every driven wheel gets the full peak torque
            mult = tuple(1.0 if f else 0.0 for f in driven_flags)
        throttle = CommandResponseParams(float(_value(drive.basic, "peakTorque")), mult, _nonlinear(ncr.get("drive")))
    elif drive.type == "standard":
        drive_type = DRIVE_STANDARD
        e = drive.engine
        engine = EngineParams(
            moi=float(_value(e, "moi")), peak_torque=float(_value(e, "peakTorque")),
            idle_omega=float(_value(e, "idleRotationSpeed")), max_omega=float(_value(e, "maxRotationSpeed")),
            torque_curve=tuple((float(p[0]), float(p[1])) for p in _value(e, "torqueCurve"))[:MAX_TORQUE_CURVE_POINTS],
            damping_rate_full_throttle=float(_value(e, "dampingRateFullThrottle")),
            damping_rate_zero_throttle_clutch_engaged=float(_value(e, "dampingRateZeroThrottleClutchEngaged")),
            damping_rate_zero_throttle_clutch_disengaged=float(_value(e, "dampingRateZeroThrottleClutchDisengaged")),
        )
        usd_ratios = [float(r) for r in _value(drive.gears, "ratios")]
        if not usd_ratios or len(usd_ratios) > MAX_NB_GEARS - 1:
            raise VehicleParamsError(f"vehicle {vehicle_path}: gear ratio count {len(usd_ratios)} outside [1, {MAX_NB_GEARS - 1}]")
        ratios = (usd_ratios[0], 0.0, *usd_ratios[1:])  # reverse, neutral, forwards
        gearbox = GearboxParams(ratios=ratios, final_ratio=float(_value(drive.gears, "ratioScale")),
                                switch_time=float(_value(drive.gears, "switchTime")))
        clutch = ClutchParams(strength=float(_value(drive.clutch, "strength")))
        ab = drive.autoGearBox
        if ab is not None:
            nb = gearbox.nb_ratios
            up = [0.0] * nb
            down = [0.0] * nb
            n_fwd = nb - 2
            for i, r in enumerate(list(_value(ab, "upRatios"))[: max(0, n_fwd - 1)]):
                up[NEUTRAL_GEAR + 1 + i] = float(r)  # first .. second-highest gear
            for i, r in enumerate(list(_value(ab, "downRatios"))[: max(0, n_fwd - 1)]):
                down[NEUTRAL_GEAR + 2 + i] = float(r)  # second .. highest gear
            autobox = AutoboxParams(tuple(up), tuple(down), float(_value(ab, "latency")))
        initial_gear = NEUTRAL_GEAR + 1 if gearbox.nb_ratios > NEUTRAL_GEAR + 1 else 0
        if mwd is not None or tank is not None:
            wheels_list = _optional(mwd, "wheels", [])
            torque = _ratio_list(n, wheels_list, _optional(mwd, "torqueRatios", []))
            ave = _ratio_list(n, wheels_list, _optional(mwd, "averageWheelSpeedRatios", []))
        else:  # deprecated `driven`: 1/n_driven each
            nd = sum(driven_flags)
            torque = ave = tuple((1.0 / nd if f else 0.0) for f in driven_flags) if nd else tuple([0.0] * n)
        if tank is not None:
            per_track = [int(x) for x in _value(tank, "numberOfWheelsPerTrack")]
            starts = [int(x) for x in _value(tank, "trackToWheelIndices")]
            order = [int(x) for x in _value(tank, "wheelIndicesInTrackOrder")]
            tracks = tuple(tuple(order[s : s + c]) for s, c in zip(starts, per_track))
            for track in tracks:
                for w in track:
                    if not 0 <= w < n:
                        raise VehicleParamsError(f"tank track wheel index {w} out of range")
            tank_diff = TankDifferentialParams(
                torque_ratios=torque, ave_wheel_speed_ratios=ave,
                thrust_index_per_track=tuple(int(x) for x in _value(tank, "thrustIndexPerTrack")), wheels_per_track=tracks,
            )
        else:
            multi = MultiWheelDifferentialParams(torque_ratios=torque, ave_wheel_speed_ratios=ave)
    else:
        raise VehicleParamsError(f"vehicle {vehicle_path}: unknown drive type {drive.type!r}")

    # --- controller values (a controller API not applied: PhysX's command state at rest)
    ctrl, tank_ctrl = v.controller, v.tankController
    target_gear = _gear_to_physx(int(_optional(ctrl, "targetGear", AUTOMATIC_GEAR)))
    if drive_type == DRIVE_STANDARD and target_gear != AUTOMATIC_GEAR:
        initial_gear = target_gear  # Omni applies a non-automatic initial target immediately
    controls = ControlValues(
        accelerator=float(_optional(ctrl, "accelerator", 0.0)), brake0=float(_optional(ctrl, "brake0", 0.0)),
        brake1=float(_optional(ctrl, "brake1", 0.0)), steer=float(_optional(ctrl, "steer", 0.0)), target_gear=target_gear,
        thrust0=float(_optional(tank_ctrl, "thrust0", 0.0)), thrust1=float(_optional(tank_ctrl, "thrust1", 0.0)),
        wheel_drive_torque=tuple(float(_optional(wd.wheelController, "driveTorque", 0.0)) for wd in wheels_desc),
        wheel_brake_torque=tuple(float(_optional(wd.wheelController, "brakeTorque", 0.0)) for wd in wheels_desc),
        wheel_steer_angle=tuple(float(_optional(wd.wheelController, "steerAngle", 0.0)) for wd in wheels_desc),
    )

    # --- vehicle-level tire params
    tire_slip = TireSlipParams(
        min_lat_slip_denominator=float(_value(veh, "minLateralSlipDenominator")),
        min_passive_long_slip_denominator=float(_value(veh, "minPassiveLongitudinalSlipDenominator")),
        min_active_long_slip_denominator=float(_value(veh, "minActiveLongitudinalSlipDenominator")),
    )
    tire_sticky = TireStickyParams(
        longitudinal=(float(_value(veh, "longitudinalStickyTireThresholdSpeed")),
                      float(_value(veh, "longitudinalStickyTireThresholdTime")),
                      float(_value(veh, "longitudinalStickyTireDamping"))),
        lateral=(float(_value(veh, "lateralStickyTireThresholdSpeed")), float(_value(veh, "lateralStickyTireThresholdTime")),
                 float(_value(veh, "lateralStickyTireDamping"))),
    )
    return VehicleParams(
        path=vehicle_path, drive_type=drive_type, frame=frame, scale=ScaleParams(length_scale), context=ctx,
        rigid_body=rigid_body, initial_state=initial_state,
        suspension_state_calculation=SuspensionStateCalculationParams(
            query_type=QUERY_SWEEP if _value(veh, "suspensionLineQueryType") == "sweep" else QUERY_RAYCAST,
            limit_expansion_velocity=bool(_value(veh, "limitSuspensionExpansionVelocity")),
        ),
        tire_slip=tire_slip, tire_sticky=tire_sticky, wheels=tuple(wheel_params), brakes=(brakes[0], brakes[1]),
        steer=steer, ackermann=ackermann, throttle=throttle, engine=engine, gearbox=gearbox, clutch=clutch,
        autobox=autobox, multi_wheel_differential=multi, tank_differential=tank_diff, controls=controls,
        initial_gear=initial_gear, enabled=bool(_value(veh, "vehicleEnabled")), description=v,
        scene=scene.settings,
    )


def build_all_vehicle_params(description: StageDescription) -> list[VehicleParams]:
    """Every vehicle of the description, in description order."""
    return [build_vehicle_params(description, path) for path in description.vehicles]

