"""Each per-wheel function of the compiled kernel (sim/_substeps.c) against its numpy twin, on random inputs.

tests/test_sim_compiled.py steps whole trajectories both ways; here each C function the kernel's wheel loop is
made of is called alone, through the extension's pvu_test_<name> wrapper, over N lanes of physically sensible
values from a seeded generator, and compared with the numpy function of the same name on the same float32 values.

Tolerances are in ulps of float32 (+0 and -0 are 0 apart). 0 where the C function does its twin's arithmetic in
the same order: every function but the three below, and those hold to 0 over other seeds too. The kernel has its
own atan, tan, cos and asin (numpy's are libm's or its own SIMD ones), within 3 ulp of the correctly rounded value
(tested last), so
- tire_slips: the lateral slip is an atan: within 4 ulp (3 seen over 30 seeds);
- tire_force_model: a tan and a cos feed the combined-slip arithmetic: within 16 ulp of each force (8 seen);
- tire_camber: an asin, and the sine computed as (T . lat) / |T| where numpy normalises T first: within 4 ulp of 1,
  the sine's scale (2 seen; a small camber is a difference of unit-scale products, so its own ulps are no measure).
"""
from __future__ import annotations

import ctypes
from types import SimpleNamespace as NS

import numpy as np
import pytest

from physxvehicle_usd.runtime.vehicle2 import QUERY_SWEEP
from physxvehicle_usd.sim import compiled, suspension, tire, wheel
from physxvehicle_usd.sim import vecmath as vm

pytestmark = pytest.mark.skipif(not compiled.available(), reason="physxvehicle_usd.sim._substeps is not built")

N = 4096  # lanes per comparison
F32, I32 = np.float32, np.int32


def ulps(a, b) -> np.ndarray:
    """Distance between float32 values in units in the last place."""
    def ordered(x):
        bits = np.asarray(x, dtype=F32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(a) - ordered(b))


def assert_ulps(name: str, ours, theirs, tolerance: int = 0, scale=None) -> None:
    """ours within `tolerance` ulps of theirs, or (with `scale`) within `tolerance` ulps of |scale| of it."""
    ours, theirs = np.asarray(ours, dtype=F32), np.asarray(theirs, dtype=F32)
    assert ours.shape == theirs.shape, name
    assert not np.isnan(theirs).any(), f"{name}: the numpy twin gave NaN: the inputs are out of range"
    distance = ulps(ours, theirs)
    ok = distance <= tolerance
    if scale is not None:
        ok |= np.abs(ours.astype(float) - theirs) <= tolerance * np.spacing(np.abs(np.asarray(scale, dtype=F32)))
    worst = int(np.argmax(np.where(ok, 0, distance)))
    lane = np.unravel_index(worst, ours.shape)
    assert ok.all(), (f"{name}: {int((~ok).sum())} lanes beyond {tolerance} ulp, e.g. lane {lane}: kernel"
                      f" {ours.flat[worst]!r}, numpy {theirs.flat[worst]!r} ({int(distance.flat[worst])} ulp)")


def kernel(name: str, *args) -> None:
    """pvu_test_<name>(N, flags..., arrays...): Python ints go as C ints (the optional parts' flags), arrays (float32
    or int32, contiguous; vectors (3, N), rotations (3, 3, N)) by address."""
    c_args = [ctypes.c_int64(N)]
    for a in args:
        if isinstance(a, (bool, int)):
            c_args.append(ctypes.c_int(int(a)))
        else:
            assert a.dtype in (F32, I32) and a.flags.c_contiguous and a.shape[-1] == N, (name, a.dtype, a.shape)
            c_args.append(ctypes.c_void_p(a.ctypes.data))
    function = getattr(compiled._LIB, f"pvu_test_{name}")
    function.restype = None
    function(*c_args)


class Draw:
    """Seeded float32 lanes: uniform values, flags, and geometry (unit vectors, rotations near upright)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def u(self, lo: float, hi: float, *lead: int) -> np.ndarray:
        return self.rng.uniform(lo, hi, (*lead, N)).astype(F32)

    def flag(self, p: float) -> np.ndarray:
        return self.rng.random(N) < p

    def some(self, values: np.ndarray, p: float, to: float) -> np.ndarray:
        """values with a fraction p of lanes set to `to` (zeros, thresholds: the edges of the selects)."""
        return np.where(self.flag(p), F32(to), values).astype(F32)

    def unit(self, x: float, y: float, z: float, jitter: float) -> np.ndarray:
        v = np.array([x, y, z], dtype=float)[:, None] + self.rng.uniform(-jitter, jitter, (3, N))
        return (v / np.linalg.norm(v, axis=0)).astype(F32)

    def rotation(self, tilt: float = 0.15) -> np.ndarray:
        """(3, 3, N): any heading, roll and pitch up to about 2 tilt."""
        q = np.stack([np.ones(N), self.rng.uniform(-tilt, tilt, N), self.rng.uniform(-1.0, 1.0, N),
                      self.rng.uniform(-tilt, tilt, N)])
        return vm.quat_to_mat(q / np.linalg.norm(q, axis=0)).astype(F32)


def out(*lead: int, dtype=F32) -> np.ndarray:
    return np.zeros((*lead, N), dtype=dtype)


def i32(flags) -> np.ndarray:
    return np.ascontiguousarray(flags, dtype=I32)


def matvec(R: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(vm.matvec(R, v), dtype=F32)


# suspension.py


@pytest.mark.parametrize("parallel", [0.0, 0.1], ids=["tilted", "some-parallel"])
def test_jounce_from_depth(parallel):
    g = Draw(1)
    depth, travel = g.u(-0.5, 0.3), g.u(0.05, 0.4)
    rho = g.some(g.u(-1.0, -0.2), parallel, 0.0)  # 0: the wheel plane parallel to the suspension
    prev, specified = g.u(0.0, 0.4), g.flag(0.7)
    j, sep = suspension.jounce_from_depth(depth, rho, travel, prev, specified)
    kj, ksep = out(), out()
    kernel("jounce_from_depth", depth, rho, travel, prev, i32(specified), kj, ksep)
    assert_ulps("jounce", kj, j)
    assert_ulps("separation", ksep, sep)


def test_limit_expansion_velocity():
    g = Draw(2)
    p = NS(spring_stiffness=g.u(1e4, 6e4), spring_damping=g.u(1e3, 8e3), wheel_mass=g.u(15.0, 40.0))
    j, jdot, sep = g.u(0.0, 0.3), g.u(-5.0, 5.0), g.u(-0.1, 0.1)
    prev, prev_speed, g_along = g.u(0.0, 0.3), g.u(-3.0, 3.0), g.u(-10.0, 10.0)
    has_hit, apply, dt = g.flag(0.8), g.flag(0.7), g.u(1 / 240, 1 / 30)
    theirs = suspension.limit_expansion_velocity(p, j, jdot, sep, prev, prev_speed, g_along, has_hit, dt, apply)
    ours = out(), out(), out(), out(dtype=I32)
    kernel("limit_expansion_velocity", p.spring_stiffness, p.spring_damping, p.wheel_mass, j, jdot, sep, prev,
           prev_speed, g_along, i32(has_hit), dt, i32(apply), *ours)
    for name, a, b in zip(("jounce", "jounce speed", "separation"), ours, theirs):
        assert_ulps(name, a, b)
    assert np.array_equal(ours[3].astype(bool), theirs[3])
    assert 0 < theirs[3].sum() < N  # both sides of the clamp


@pytest.mark.parametrize("any_sweep, any_limit", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["raycast", "sweep", "limit", "sweep-limit"])
def test_update_suspension_state(any_sweep, any_limit):
    g = Draw(3)
    R = g.rotation()
    d = matvec(R, g.unit(0.0, -1.0, 0.0, 0.05))  # suspension direction, world
    normal = g.unit(0.0, 1.0, 0.0, 0.2)
    parallel = g.flag(0.05)  # a wheel plane parallel to the suspension: rho exactly 0
    R[:, :, parallel] = np.eye(3, dtype=F32)[:, :, None]
    d[:, parallel] = np.array([0.0, -1.0, 0.0], dtype=F32)[:, None]
    normal[:, parallel] = np.array([1.0, 0.0, 0.0], dtype=F32)[:, None]
    hub = np.stack([g.u(-2.0, 2.0), g.u(0.3, 0.9), g.u(-2.0, 2.0)])
    ground = np.stack([hub[0], g.u(-0.1, 0.1), hub[2]])  # a point of the ground plane below the hub
    road_offset = (-vm.dot(normal, ground)).astype(F32)
    steer = g.u(-0.5, 0.5)
    axle = np.stack([np.cos(steer), np.zeros(N, F32), -np.sin(steer)]).astype(F32)  # lateral axis, body frame
    gravity = np.stack([g.u(-0.5, 0.5), g.u(-9.9, -9.7), g.u(-0.5, 0.5)])
    travel = g.u(0.1, 0.35)
    p = NS(travel_distance=travel, radius=g.u(0.25, 0.45), half_width=g.u(0.08, 0.2), spring_stiffness=g.u(1e4, 6e4),
           spring_damping=g.u(1e3, 8e3), wheel_mass=g.u(15.0, 40.0), mask=g.flag(0.95), any_sweep=any_sweep,
           query_type=np.where(g.flag(0.5), QUERY_SWEEP, 0), any_limit_expansion=any_limit,
           limit_expansion_velocity=g.flag(0.5), gravity=gravity)
    prev = (g.u(0.0, 1.0) * travel).astype(F32)
    s = NS(jounce=prev, jounce_speed=g.u(-2.0, 2.0), jounce_specified=g.flag(0.8))
    road = NS(hit=g.flag(0.9), normal=normal, offset=road_offset)
    dt = g.u(1 / 240, 1 / 60)
    # the numpy twin on (V, W) = (N, 1) wheels
    w = lambda a: a[..., None]  # noqa: E731
    wp = NS(**{k: (w(v) if isinstance(v, np.ndarray) and k not in ("query_type", "limit_expansion_velocity", "gravity")
                   else v) for k, v in vars(p).items()})
    ws = NS(jounce=w(s.jounce), jounce_speed=w(s.jounce_speed), jounce_specified=w(s.jounce_specified))
    theirs = suspension.update_suspension_state(wp, ws, NS(hit=w(road.hit), normal=w(normal), offset=w(road_offset)),
                                                w(R), w(d), w(hub), w(axle) if any_sweep else None, w(dt))
    ours = out(), out(), out(), out(dtype=I32)
    kernel("update_suspension_state", any_sweep, any_limit, travel, p.radius, p.half_width, p.spring_stiffness,
           p.spring_damping, p.wheel_mass, i32(p.mask), i32(p.query_type == QUERY_SWEEP),
           i32(p.limit_expansion_velocity), prev, s.jounce_speed, i32(s.jounce_specified), i32(road.hit), normal, road_offset, R, d, hub, axle, gravity,
           dt, *ours)
    for name, a, b in zip(("jounce", "jounce speed", "separation"), ours, (theirs.jounce, theirs.jounce_speed,
                                                                           theirs.separation)):
        assert_ulps(name, a, b[:, 0])
    assert np.array_equal(ours[3].astype(bool), theirs.on_ground[:, 0])
    assert 0 < theirs.on_ground.sum() < N  # wheels on and off the ground


def test_suspension_force():
    g = Draw(4)
    R = g.rotation()
    d, normal = matvec(R, g.unit(0.0, -1.0, 0.0, 0.05)), g.unit(0.0, 1.0, 0.0, 0.2)
    f_es = np.stack([g.u(-200.0, 200.0), g.u(-4000.0, -1000.0), g.u(-200.0, 200.0)])  # sprung mass share x gravity
    arm = g.u(-2.0, 2.0, 3)
    p = NS(spring_stiffness=g.u(1e4, 6e4), spring_damping=g.u(1e3, 8e3), f_es=f_es, susp_arm=arm)
    susp = NS(jounce=g.u(0.0, 0.3), jounce_speed=g.u(-3.0, 3.0), on_ground=g.flag(0.9))
    w = lambda a: a[..., None]  # noqa: E731  (V, W) = (N, 1) wheels for the numpy twin
    theirs = suspension.suspension_force(NS(**{k: w(v) for k, v in vars(p).items()}),
                                         NS(**{k: w(v) for k, v in vars(susp).items()}), NS(normal=w(normal)), None,
                                         w(R), w(d))
    ours = out(3), out(3), out()
    kernel("suspension_force", p.spring_stiffness, p.spring_damping, f_es, arm, susp.jounce, susp.jounce_speed,
           i32(susp.on_ground), normal, R, d, *ours)
    assert_ulps("force", ours[0], theirs.force[..., 0])
    assert_ulps("torque", ours[1], theirs.torque[..., 0])
    assert_ulps("normal force", ours[2], theirs.normal_force[..., 0])


# tire.py


def test_tire_directions():
    g = Draw(5)
    lat_axis = matvec(g.rotation(), g.unit(1.0, 0.0, 0.0, 0.1))
    normal, on_ground = g.unit(0.0, 1.0, 0.0, 0.2), g.flag(0.9)
    t_lng, t_lat = tire.tire_directions(lat_axis, normal, on_ground)
    ours = out(3), out(3)
    kernel("tire_directions", lat_axis, normal, i32(on_ground), *ours)
    assert_ulps("longitudinal direction", ours[0], t_lng)
    assert_ulps("lateral direction", ours[1], t_lat)


def test_contact_speeds():
    g = Draw(6)
    p = NS(radius=g.u(0.25, 0.45))
    args = (g.u(-30.0, 30.0, 3), g.u(-3.0, 3.0, 3), g.u(-2.0, 2.0, 3), g.unit(0.0, -1.0, 0.0, 0.05),
            g.unit(0.0, 0.0, 1.0, 0.2), g.unit(1.0, 0.0, 0.0, 0.2))  # velocities, centre offset, d, directions
    vx, vy = tire.contact_speeds(p, *args)
    ours = out(), out()
    kernel("contact_speeds", p.radius, *args, *ours)
    assert_ulps("longitudinal speed", ours[0], vx)
    assert_ulps("lateral speed", ours[1], vy)


def test_tire_slips():
    g = Draw(7)
    p = NS(radius=g.u(0.25, 0.45), min_lat_slip_denominator_w=g.u(0.5, 2.0),
           min_active_long_slip_denominator_w=g.u(0.05, 0.2), min_passive_long_slip_denominator_w=g.u(2.0, 6.0))
    standing = g.flag(0.05)  # vx = omega = 0: no slip
    vx = np.where(standing, F32(0.0), g.some(g.u(-30.0, 30.0), 0.05, 0.0)).astype(F32)
    omega = np.where(standing, F32(0.0), g.some(g.u(-100.0, 100.0), 0.05, 0.0)).astype(F32)
    vy, applied = g.u(-5.0, 5.0), g.flag(0.5)
    lng, lat = tire.tire_slips(p, vx, vy, omega, applied)
    ours = out(), out()
    kernel("tire_slips", p.radius, p.min_lat_slip_denominator_w, p.min_active_long_slip_denominator_w,
           p.min_passive_long_slip_denominator_w, vx, vy, omega, i32(applied), *ours)
    assert_ulps("longitudinal slip", ours[0], lng)
    assert_ulps("lateral slip", ours[1], lat, 4)  # the kernel's atan


def test_tire_camber():
    g = Draw(8)
    R = g.rotation(0.2)
    normal, on_ground = g.unit(0.0, 1.0, 0.0, 0.2), g.flag(0.9)
    lat_axis, lng_axis = matvec(R, g.unit(1.0, 0.0, 0.0, 0.0)), matvec(R, g.unit(0.0, 0.0, 1.0, 0.0))
    camber = tire.tire_camber(normal, lng_axis, lat_axis, on_ground)
    ours = out()
    kernel("tire_camber", normal, lng_axis, lat_axis, i32(on_ground), ours)
    assert_ulps("camber", ours, camber, 4, scale=1.0)  # the kernel's asin and order: see the module docstring
    assert np.abs(camber).max() > 0.2


def test_tire_load():
    g = Draw(9)
    x0, y0 = g.u(-0.5, 0.5), g.u(0.0, 0.5)
    x1, y1 = (x0 + g.u(1.0, 4.0)).astype(F32), (y0 + g.u(1.0, 3.0)).astype(F32)
    p = NS(rest_load=g.u(2000.0, 6000.0), load_x0=x0, load_y0=y0, load_x1=x1, load_y1=y1,
           load_slope=((y1 - y0) / (x1 - x0)).astype(F32))
    normal_force, on_ground = g.u(-2000.0, 25000.0), g.flag(0.9)
    load = tire.tire_load(p, normal_force, on_ground)
    ours = out()
    kernel("tire_load", p.rest_load, x0, y0, x1, y1, p.load_slope, normal_force, i32(on_ground), ours)
    assert_ulps("load", ours, load)


def test_tire_load_without_rest_load():
    """Zero gravity gives a zero rest load (sprung mass x gravity): off the ground the load is 0, as numpy's where
    makes it, not 0 x NaN (the normalised load 0 / 0), which turned a car without ground non-finite in its first step."""
    g = Draw(11)
    x0, y0 = g.u(-0.5, 0.5), g.u(0.0, 0.5)
    x1, y1 = (x0 + g.u(1.0, 4.0)).astype(F32), (y0 + g.u(1.0, 3.0)).astype(F32)
    p = NS(rest_load=np.zeros(N, F32), load_x0=x0, load_y0=y0, load_x1=x1, load_y1=y1,
           load_slope=((y1 - y0) / (x1 - x0)).astype(F32))
    normal_force, on_ground = np.zeros(N, F32), g.flag(0.5)
    with np.errstate(invalid="ignore", divide="ignore"):
        load = tire.tire_load(p, normal_force, on_ground)
    ours = out()
    kernel("tire_load", p.rest_load, x0, y0, x1, y1, p.load_slope, normal_force, i32(on_ground), ours)
    assert np.isfinite(load[~on_ground]).all() and (load[~on_ground] == 0.0).all()
    np.testing.assert_array_equal(ours[~on_ground], load[~on_ground])


def test_tire_friction():
    g = Draw(10)
    x0, x1 = np.zeros(N, F32), g.u(0.05, 0.2)
    x2 = (x1 + g.u(0.2, 1.0)).astype(F32)
    ys = g.u(0.8, 1.2), g.u(0.8, 1.2), g.u(0.8, 1.2)
    slopes = [((ys[1] - ys[0]) / (x1 - x0)).astype(F32), ((ys[2] - ys[1]) / (x2 - x1)).astype(F32)]
    p = NS(fvs_x0=x0, fvs_x1=x1, fvs_x2=x2, fvs_y0=ys[0], fvs_y1=ys[1], fvs_y2=ys[2], fvs_slope0=slopes[0],
           fvs_slope1=slopes[1])
    lng_slip, road_friction, on_ground = g.u(-2.0, 2.0), g.u(0.3, 1.2), g.flag(0.9)
    friction = tire.tire_friction(p, lng_slip, road_friction, on_ground)
    ours = out()
    kernel("tire_friction", x0, x1, x2, *ys, *slopes, lng_slip, road_friction, i32(on_ground), ours)
    assert_ulps("friction", ours, friction)


def test_sticky_tire_state():
    g = Draw(11)
    p = NS(radius=g.u(0.25, 0.45), sticky_lng_speed_w=g.u(0.05, 0.3), sticky_lng_time_w=g.u(0.1, 1.0),
           sticky_lat_speed_w=g.u(0.05, 0.3), sticky_lat_time_w=g.u(0.1, 1.0))
    vx, vy, omega = g.some(g.u(-0.5, 0.5), 0.1, 0.0), g.u(-0.5, 0.5), g.some(g.u(-2.0, 2.0), 0.3, 0.0)
    load, friction = g.some(g.u(0.0, 5000.0), 0.1, 0.0), g.some(g.u(0.0, 1.2), 0.1, 0.0)
    accel, brake = g.flag(0.3), g.flag(0.3)
    lng_time, lat_time, dt = g.u(0.0, 1.5), g.u(0.0, 1.5), g.u(1 / 240, 1 / 60)
    theirs = tire.sticky_tire_state(p, vx, vy, omega, load, friction, accel, brake, lng_time, lat_time, dt)
    ours = out(), out(), out(dtype=I32), out(dtype=I32)
    kernel("sticky_tire_state", p.radius, p.sticky_lng_speed_w, p.sticky_lng_time_w, p.sticky_lat_speed_w,
           p.sticky_lat_time_w, vx, vy, omega, load, friction, i32(accel), i32(brake), lng_time, lat_time, dt, *ours)
    assert_ulps("longitudinal low-speed time", ours[0], theirs[0])
    assert_ulps("lateral low-speed time", ours[1], theirs[1])
    for name, a, b in (("sticky longitudinal", ours[2], theirs[2]), ("sticky lateral", ours[3], theirs[3])):
        assert np.array_equal(a.astype(bool), b), name
        assert 0 < b.sum() < N, name  # both sides


@pytest.mark.parametrize("any_camber", [False, True], ids=["no-camber-stiffness", "camber-stiffness"])
def test_tire_force_model(any_camber):
    g = Draw(12)
    rest = g.u(2000.0, 6000.0)
    lat_stiff_x = g.some(g.u(1.0, 3.0), 0.2, 0.0)  # 0: a constant lateral stiffness
    p = NS(rest_load=rest, lat_stiff_x=lat_stiff_x, lat_stiff_y=(rest * g.u(5.0, 30.0)).astype(F32),
           lat_saturation=g.u(0.2, 1.0), long_stiff=(rest * g.u(2.0, 20.0)).astype(F32),
           camber_stiff=(rest * g.u(0.0, 1.0)).astype(F32), any_lat_stiff_x_zero=True, any_camber_stiffness=any_camber)
    lng_slip = g.some(g.some(g.u(-1.0, 1.0), 0.05, 0.0), 0.05, 5e-6)  # zeros and slips in the dead zone
    lat_slip = g.some(g.u(-0.6, 0.6), 0.05, 0.0)
    camber, load, friction = g.u(-0.2, 0.2), g.some(g.u(0.0, 9000.0), 0.05, 0.0), g.u(0.0, 1.2)
    f_lng, f_lat = tire.tire_force_model(p, lng_slip, lat_slip, camber, load, friction)
    ours = out(), out()
    kernel("tire_force_model", any_camber, rest, lat_stiff_x, p.lat_stiff_y, p.lat_saturation, p.long_stiff,
           p.camber_stiff, lng_slip, lat_slip, camber, load, friction, *ours)
    assert_ulps("longitudinal force", ours[0], f_lng, 16)  # the kernel's tan and cos: see the module docstring
    assert_ulps("lateral force", ours[1], f_lat, 16)


# wheel.py


def test_direct_drive_update():
    g = Draw(13)
    p = NS(wheel_moi=g.u(0.5, 3.0), wheel_damping_rate=g.u(0.0, 1.0), mask=g.flag(0.95))
    omega = g.some(g.u(-100.0, 100.0), 0.05, 0.0)
    tire_torque, drive, brake = g.u(-3000.0, 3000.0), g.u(0.0, 1000.0), g.some(g.u(0.0, 5000.0), 0.5, 0.0)
    brake_applied, dt = g.flag(0.5), g.u(1 / 240, 1 / 60)
    theirs = wheel.direct_drive_update(p, omega, tire_torque, drive, brake, brake_applied, dt)
    ours = out()
    kernel("direct_drive_update", p.wheel_moi, p.wheel_damping_rate, i32(p.mask), omega, tire_torque, drive, brake,
           i32(brake_applied), dt, ours)
    assert_ulps("wheel speed", ours, theirs)
    assert (theirs == 0.0).sum() > N // 20  # locked wheels among them


def test_update_rotation_angle():
    g = Draw(14)
    p = NS(wheel_angle_threshold_speed=g.u(1.0, 5.0), radius=g.u(0.25, 0.45)[:, None], mask=g.flag(0.95)[:, None])
    s = NS(jounce=g.some(g.u(0.0, 0.3), 0.1, 0.0)[:, None], rotation_speed=g.u(-100.0, 100.0)[:, None],
           rotation_angle=g.u(-6.28, 6.28)[:, None])
    lng_speed, brake, drive = g.u(-8.0, 8.0), g.flag(0.2), g.flag(0.2)
    dt = F32(1 / 60)
    kernel_args = (p.radius[:, 0], p.wheel_angle_threshold_speed, i32(p.mask[:, 0]), s.rotation_angle[:, 0],
                   s.rotation_speed[:, 0], s.jounce[:, 0], lng_speed, i32(brake), i32(drive), np.full(N, dt))
    wheel.update_rotation_angle(p, s, lng_speed[:, None], brake[:, None], drive[:, None], float(dt))
    ours = out(), out()
    kernel("update_rotation_angle", *[np.ascontiguousarray(a) for a in kernel_args], *ours)
    assert_ulps("rotation angle", ours[0], s.rotation_angle[:, 0])
    assert_ulps("corrected rotation speed", ours[1], s.corrected_rotation_speed[:, 0])


# the kernel's own functions: within 3 ulp of the correctly rounded value (float64 rounded to float32)


@pytest.mark.parametrize("name, reference, lo, hi", [
    ("atan_f", np.arctan, -50.0, 50.0), ("atan_f", np.arctan, -1.0, 1.0), ("tan_f", np.tan, -1.5, 1.5),
    ("cos_f", np.cos, 0.0, 4.0), ("asin_f", np.arcsin, -1.0, 1.0)])
def test_own_transcendentals(name, reference, lo, hi):
    x = Draw(15).u(lo, hi)
    ours = out()
    kernel(name, x, ours)
    assert_ulps(name, ours, reference(x.astype(np.float64)).astype(F32), 3)
