"""Steps a USD stage in real PhysX (ovphysx, CPU only) and writes vehicle telemetry to a file.

Run by path from `physxvehicle_usd.oracle`, never imported by the package: ovphysx registers
NVIDIA's PhysX schemas in this process, and our own vehicle schema plugin must not be registered
next to them. So this file imports only the standard library, numpy, ovstage and ovphysx.

    python worker.py REQUEST.json RESULT.npz

The request is JSON: usd_path, steps, dt, record_every, vehicles (list of paths or null),
controls ({prim path or "*": {attribute: number or per-step list}}) and telemetry ({kind: [attribute]}
to record only those; null or a kind left out: all of that kind's attributes). The result is an .npz whose
"meta" entry is a JSON document (paths, attributes, timings, what could not be read) and whose
other entries are the traces, named "<kind>|<attribute>", shaped (records, rows, lanes), and for
each a mask "written|<kind>|<attribute>" of the rows that ever received a value.
A failure is reported as one line "ORACLE_ERROR: <message>" on stderr and exit status 3.
"""
from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# Running a script puts its folder first on sys.path; this folder is our package, which must stay unimported.
sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != _HERE]

import numpy as np  # noqa: E402

ERROR_PREFIX = "ORACLE_ERROR: "

VEHICLE_ATTRIBUTES = (
    "engineRotationSpeed",
    "currentGear",
    "targetGear",
    "clutch",
    "gearSwitchTime",
    "autoboxTimeSinceLastShift",
    "automaticTransmission",
)
WHEEL_ATTRIBUTES = (
    "rotationSpeed",
    "rotationAngle",
    "wheelSteerAngle",
    "suspensionJounce",
    "suspensionForce",
    "tireFriction",
    "tireLongitudinalSlip",
    "tireLateralSlip",
    "tireForce",
    "tireLongitudinalDirection",
    "tireLateralDirection",
    "isOnGround",
    "position",
    "orientation",
)
BODY_ATTRIBUTES = ("position", "orientation", "linearVelocity", "angularVelocity")

# Control names as the caller gives them -> ovphysx write attribute and its element type.
VEHICLE_CONTROLS = {
    "accelerator": ("accelerator", np.float32),
    "brake0": ("brake0", np.float32),
    "brake1": ("brake1", np.float32),
    "steer": ("steer", np.float32),
    # The USD controller attribute is targetGear; ovphysx calls the persistent request requestedGear.
    "targetGear": ("requestedGear", np.int32),
    "requestedGear": ("requestedGear", np.int32),
    "thrust0": ("thrust0", np.float32),
    "thrust1": ("thrust1", np.float32),
}
WHEEL_CONTROLS = {
    "driveTorque": ("driveTorque", np.float32),
    "brakeTorque": ("brakeTorque", np.float32),
    "steerAngle": ("steerAngle", np.float32),
}


class WorkerError(Exception):
    """A problem with the stage or the request, reported to the caller as its message."""


def _open_stage(physx, usd_path: str):
    import ovphysx
    import ovstage
    from ovphysx.samples.python_samples.schema_support import physx_schema_paths

    if not ovstage.population.available():
        raise WorkerError("the ovstage population bridge is unavailable")
    roots = [str(p) for p in physx_schema_paths()]
    try:
        roots.append(str(ovphysx.newton_schema_root()))
    except (FileNotFoundError, AttributeError):
        pass  # the Newton schemas are optional; vehicle stages carry no newton:* attributes
    ovstage.population.register_usd_schemas(roots)
    stage = ovstage.Stage("physxvehicle-usd-oracle")
    try:
        ovstage.population.open_usd(stage, usd_path, ordinal=1, domains=ovstage.PopulationDomain.ALL)
        stage.advance_write_floor(ordinal=1).wait()
        physx.wait_task(physx.attach_ovstage(stage, read_ordinal=1))
    except Exception as exc:
        stage.destroy()
        raise WorkerError(f"ovphysx could not load {usd_path}: {exc}") from exc
    return stage


def _paths_of(query, group) -> list[str]:
    paths = query.dictionary.get_path_strings(group.prim_list)
    return list(paths[group.prim_offset:group.prim_offset + group.prim_count])


def _list_paths(physx, query, attribute: str) -> list[str]:
    """Every row path of a query, found by reading one attribute that all its objects have."""
    found: list[str] = []
    with physx.read(query, [attribute]).wait() as result:
        while (group := result.fetch_next().wait()) is not None:
            found.extend(_paths_of(query, group))
    return found


class Recorder:
    """Reads a fixed set of attributes of one query into preallocated (records, rows, lanes) arrays."""

    def __init__(self, physx, query, paths: list[str], attributes, records: int):
        self.physx = physx
        self.query = query
        self.paths = paths
        self.row_of = {p: i for i, p in enumerate(paths)}
        self.attributes = list(attributes)
        self.records = records
        self.arrays: dict[str, np.ndarray] = {}
        # Rows that ever received a value: a Standard-drive column, say, skips Basic-drive vehicles.
        self.written: dict[str, np.ndarray] = {}
        self.seen: set[str] = set()
        # A read hands out a new path list every time, so rows are cached by the interned path handles it holds.
        self._rows_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._token_names: dict[int, str] = {}

    def _name(self, token: int) -> str:
        name = self._token_names.get(token)
        if name is None:
            name = self.query.dictionary.token_to_string(token)
            self._token_names[token] = name
        return name

    def _rows(self, group) -> np.ndarray:
        dictionary = self.query.dictionary
        handles = dictionary.get_paths(group.prim_list)[group.prim_offset:group.prim_offset + group.prim_count]
        key = tuple(handles)
        rows = self._rows_cache.get(key)
        if rows is None:
            rows = np.array([self.row_of.get(dictionary.path_to_string(h), -1) for h in handles], dtype=np.int64)
            self._rows_cache[key] = rows
        return rows

    def read(self, record: int) -> None:
        if not self.paths or not self.attributes:
            return
        with self.physx.read(self.query, self.attributes).wait() as result:
            while (group := result.fetch_next().wait()) is not None:
                if group.is_delete or group.is_array or not group.tensors:
                    continue
                name = self._name(group.attribute)
                values = np.asarray(group.tensors[0].numpy())
                values = values.reshape(values.shape[0], -1)
                target = self.arrays.get(name)
                if target is None:
                    dtype = np.float64 if values.dtype.kind == "f" else values.dtype
                    target = np.full((self.records, len(self.paths), values.shape[1]),
                                     np.nan if dtype == np.float64 else 0, dtype=dtype)
                    self.arrays[name] = target
                    self.written[name] = np.zeros(len(self.paths), dtype=bool)
                rows = self._rows(group)
                keep = rows >= 0
                target[record, rows[keep]] = values[keep]
                self.written[name][rows[keep]] = True
                self.seen.add(name)

    def missing(self) -> list[str]:
        return [a for a in self.attributes if a not in self.seen]


class ControlWriter:
    """Writes persistent controls before the steps where their values change."""

    def __init__(self, physx, types, vehicle_paths, wheel_paths, controls: dict, steps: int):
        self.physx = physx
        # (ovphysx attribute, object type, paths, dtype) -> per-step value matrix (steps, len(paths))
        self.columns: list[tuple[str, object, list[str], np.dtype, np.ndarray]] = []
        per_attribute: dict[tuple[str, str], dict[str, np.ndarray]] = {}
        # "*" first, so that a control given for one path as well overrides it there.
        for path, values in sorted((controls or {}).items(), key=lambda item: item[0] != "*"):
            for name, value in values.items():
                if name in VEHICLE_CONTROLS:
                    kind = "vehicle"
                    known = set(vehicle_paths)
                elif name in WHEEL_CONTROLS:
                    kind = "wheel"
                    known = set(wheel_paths)
                else:
                    raise WorkerError(
                        f"control {name!r} is not writable through ovphysx; writable vehicle controls: "
                        f"{sorted(VEHICLE_CONTROLS)}, wheel controls: {sorted(WHEEL_CONTROLS)}")
                series = np.asarray(value, dtype=np.float64)
                if series.ndim == 0:
                    series = np.full(steps, float(series))
                if series.shape != (steps,):
                    raise WorkerError(f"control {name!r} of {path}: expected a number or {steps} values, "
                                      f"got shape {series.shape}")
                targets = sorted(known) if path == "*" else [path]
                for target in targets:
                    if target not in known:
                        raise WorkerError(f"control {name!r}: {target} is not a simulated {kind} "
                                          f"(simulated: {sorted(known)[:10]})")
                    per_attribute.setdefault((kind, name), {})[target] = series
        for (kind, name), by_path in per_attribute.items():
            attribute, dtype = (VEHICLE_CONTROLS if kind == "vehicle" else WHEEL_CONTROLS)[name]
            paths = sorted(by_path)
            matrix = np.stack([by_path[p] for p in paths], axis=1).astype(dtype)
            object_type = types.VEHICLE if kind == "vehicle" else types.VEHICLE_WHEEL
            self.columns.append((attribute, object_type, paths, dtype, matrix))
        self.queries: dict[tuple, object] = {}

    def _query(self, object_type, paths):
        key = (int(object_type), tuple(paths))
        query = self.queries.get(key)
        if query is None:
            # Any query's dictionary interns paths for the attached stage.
            probe = self.physx.query(object_type, metadata=False).wait()
            handles = [probe.dictionary.intern_path(p) for p in paths]
            probe.close_sync()
            query = self.physx.query(object_type, prim_paths=handles, metadata=False).wait()
            self.queries[key] = query
        return query

    def before_step(self, step: int) -> None:
        for attribute, object_type, paths, dtype, matrix in self.columns:
            if step > 0 and np.array_equal(matrix[step], matrix[step - 1]):
                continue  # controls persist in PhysX until replaced
            query = self._query(object_type, paths)
            row_of = {p: i for i, p in enumerate(paths)}
            with self.physx.write(query, [attribute]).wait() as session:
                while (group := session.fetch_next().wait()) is not None:
                    rows = [row_of[p] for p in _paths_of(query, group)]
                    group.tensors[0].assign(np.ascontiguousarray(matrix[step, rows], dtype=dtype))
                    session.commit(group).wait()

    def close(self) -> None:
        for query in self.queries.values():
            query.close_sync()


def run(request: dict) -> tuple[dict, dict[str, np.ndarray]]:
    from ovphysx import PhysX
    from ovphysx.types import ObjectScope, SimObjectType

    steps = int(request["steps"])
    dt = float(request["dt"])
    record_every = max(1, int(request.get("record_every") or 1))
    recorded_steps = [s for s in range(1, steps + 1) if s % record_every == 0 or s == steps]

    started = time.perf_counter()
    PhysX.set_cpu_mode(True)
    physx = PhysX()
    stage = None
    queries = []
    try:
        stage = _open_stage(physx, request["usd_path"])
        vehicle_query = physx.query(SimObjectType.VEHICLE, scope=ObjectScope.ALL, metadata=False).wait()
        queries.append(vehicle_query)
        wheel_query = physx.query(SimObjectType.VEHICLE_WHEEL, scope=ObjectScope.ALL, metadata=False).wait()
        queries.append(wheel_query)
        all_wheels = _list_paths(physx, wheel_query, "position")
        # No vehicle attribute is readable on every vehicle (a vehicle without a drive has no
        # accelerator), so vehicles are those with driver inputs plus the bodies carrying wheels.
        all_vehicles = set(_list_paths(physx, vehicle_query, "accelerator"))
        with physx.query(SimObjectType.RIGID_BODY, scope=ObjectScope.ALL, metadata=False).wait() as bodies:
            body_paths = set(_list_paths(physx, bodies, "position"))
        for wheel in all_wheels:
            owner = wheel.rsplit("/", 1)[0]
            while owner and owner not in body_paths:
                owner = owner.rsplit("/", 1)[0]
            if owner:
                all_vehicles.add(owner)
        all_vehicles = sorted(all_vehicles)
        wanted = request.get("vehicles")
        if wanted:
            unknown = [v for v in wanted if v not in all_vehicles]
            if unknown:
                raise WorkerError(f"no PhysX vehicle at {unknown}; vehicles created: {all_vehicles}")
            vehicle_paths = sorted(wanted)
        else:
            vehicle_paths = all_vehicles
        if not vehicle_paths:
            raise WorkerError("PhysX created no vehicle from this stage")

        prefixes = tuple(v + "/" for v in vehicle_paths)
        wheel_paths = sorted(p for p in all_wheels if p.startswith(prefixes))

        body_query = physx.query(
            SimObjectType.RIGID_BODY, scope=ObjectScope.ALL, metadata=False,
            prim_paths=[vehicle_query.dictionary.intern_path(p) for p in vehicle_paths]).wait()
        queries.append(body_query)
        if wanted:
            vehicle_query = physx.query(
                SimObjectType.VEHICLE, metadata=False,
                prim_paths=[vehicle_query.dictionary.intern_path(p) for p in vehicle_paths]).wait()
            queries.append(vehicle_query)

        records = len(recorded_steps)
        wanted_telemetry = request.get("telemetry") or {}
        attributes = {kind: wanted_telemetry.get(kind, every) for kind, every in
                      (("vehicles", VEHICLE_ATTRIBUTES), ("wheels", WHEEL_ATTRIBUTES), ("bodies", BODY_ATTRIBUTES))}
        recorders = {
            "vehicles": Recorder(physx, vehicle_query, vehicle_paths, attributes["vehicles"], records),
            "wheels": Recorder(physx, wheel_query, wheel_paths, attributes["wheels"], records),
            "bodies": Recorder(physx, body_query, vehicle_paths, attributes["bodies"], records),
        }
        controls = ControlWriter(physx, SimObjectType, vehicle_paths, wheel_paths,
                                 request.get("controls") or {}, steps)
        load_s = time.perf_counter() - started

        step_s = 0.0
        record = 0
        for step in range(steps):
            controls.before_step(step)
            tick = time.perf_counter()
            physx.step_sync(dt)
            step_s += time.perf_counter() - tick
            if record < records and recorded_steps[record] == step + 1:
                for recorder in recorders.values():
                    recorder.read(record)
                record += 1
        controls.close()

        meta = {
            "dt": dt,
            "steps": steps,
            "recorded_steps": recorded_steps,
            "load_s": load_s,
            "step_s": step_s,
            "paths": {kind: r.paths for kind, r in recorders.items()},
            "unavailable": {kind: r.missing() for kind, r in recorders.items()},
        }
        arrays = {f"{kind}|{name}": array
                  for kind, r in recorders.items() for name, array in r.arrays.items()}
        arrays.update({f"written|{kind}|{name}": mask
                       for kind, r in recorders.items() for name, mask in r.written.items()})
        return meta, arrays
    finally:
        for query in reversed(queries):
            try:
                query.close_sync()
            except Exception:  # teardown of a failed run must not hide the first error
                pass
        _release(physx, stage)


def _release(physx, stage) -> None:
    """Detach and destroy the stage (when one was opened), then PhysX."""
    if stage is not None:
        try:
            physx.wait_task(physx.detach_ovstage())
        finally:
            stage.destroy()
    physx.destroy()


def run_sweeps(request: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """The closest hit of each requested scene sweep, in the stage as loaded (nothing is stepped but a vanishing first
    step, which builds the scene-query structures). A sweep is (shape prim path, unit direction, distance): the prim's
    PhysX geometry as omni.physx's scene queries make it (a UsdGeom.Cylinder: the 30-corner convex hull also swept
    for vehicle wheels), from the prim's pose. A hit is [distance, normal, position] (world), no hit null."""
    from ovphysx import PhysX, SceneQueryGeometryType

    PhysX.set_cpu_mode(True)
    physx = PhysX()
    stage = None
    try:
        stage = _open_stage(physx, request["usd_path"])
        physx.step_sync(1e-6)
        hits = []
        for path, direction, distance in request["sweeps"]:
            found = physx.sweep(SceneQueryGeometryType.SHAPE, list(direction), float(distance), prim_path=str(path))
            hits.append([float(found[0]["distance"]), list(found[0]["normal"]), list(found[0]["position"])]
                        if found else None)
        return {"sweeps": hits}, {}
    finally:
        _release(physx, stage)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(f"{ERROR_PREFIX}usage: {Path(argv[0]).name} REQUEST.json RESULT.npz", file=sys.stderr)
        return 2
    warnings.simplefilter("ignore")  # Warp's CUDA notices are noise on a CPU-only run
    try:
        request = json.loads(Path(argv[1]).read_text())
        meta, arrays = run_sweeps(request) if "sweeps" in request else run(request)
        np.savez(argv[2], meta=np.array(json.dumps(meta)), **arrays)
    except WorkerError as exc:
        print(f"{ERROR_PREFIX}{exc}", file=sys.stderr, flush=True)
        return 3
    except Exception as exc:  # anything else from ovphysx: still one clear line for the caller
        details = [str(message) for _task, message in getattr(exc, "errors", ()) if str(message)]
        text = "; ".join(details) or str(exc)
        print(f"{ERROR_PREFIX}{type(exc).__name__}: {' '.join(text.split())}", file=sys.stderr, flush=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
