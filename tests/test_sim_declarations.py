"""The simulator's parameters and states are declared once, per subsystem (sim/declare.py): these tests hold
everything that is derived from the declarations to them, so that a parameter or state added in one place appears
everywhere or fails here, and nothing appears that is not declared."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import build_vehicle_params
from physxvehicle_usd.sim import SimParams, SimState, Simulator, initial_state
from physxvehicle_usd.sim.batch import batch, batch_from_description
from physxvehicle_usd.sim.declare import SCENE_BLOCK, VEHICLE_BLOCKS, WHEEL_BLOCKS
from physxvehicle_usd.sim.state import RECORDS, STEP_STATES
from physxvehicle_usd.sim.subsystems import DERIVED, PARAMS, STATES, SUBSYSTEMS

REPO = Path(__file__).resolve().parents[1]
BATCH_STRUCTURE = {"wheel_mask", "nb_wheels"}  # the batch's own shape, not a parameter


@pytest.fixture(scope="module")
def fleet():
    return batch_from_description(read_stage(REPO / "tests" / "scenarios" / "fleet.usda"))


def test_every_parameter_is_declared_once():
    names = [param.name for param in PARAMS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(module.PARAMS for module in SUBSYSTEMS)


def test_the_batch_holds_exactly_the_declared_arrays_with_their_shapes_and_types(fleet):
    assert set(fleet.arrays) == {param.name for param in PARAMS} | BATCH_STRUCTURE
    V, W = fleet.nb_vehicles, fleet.max_wheels
    for param in PARAMS:
        array = fleet.arrays[param.name]
        assert array.dtype == np.dtype(param.dtype), param.name
        assert array.shape[:2 if param.per_wheel else 1] == ((V, W) if param.per_wheel else (V,)), param.name
        assert array.ndim == (2 if param.wheel is not None else 1) + len(param.shape), param.name


def test_padding_wheels_hold_the_declared_pad():
    """A four-wheel car batched with the six-wheel truck: the car's two padding wheels hold each pad value."""
    vehicles = []
    for sample in ("car", "truck"):
        description = read_stage(REPO / "samples" / sample / f"{sample}.usda")
        vehicles.append(build_vehicle_params(description, next(iter(description.vehicles))))
    mixed = batch(vehicles)
    padded = ~mixed.wheel_mask
    assert padded.sum() == 2
    for param in PARAMS:
        if param.per_wheel:
            assert (mixed.arrays[param.name][padded] == np.asarray(param.pad, dtype=param.dtype)).all(), param.name


def test_a_source_names_a_property_of_the_table_read_from_its_block():
    sourced = [param for param in PARAMS if param.source is not None]
    assert len(sourced) >= 20
    for param in sourced:
        assert param.source in P.TABLE_BY_KEY, param.source
        assert param.source[0] in WHEEL_BLOCKS or param.source[0] in VEHICLE_BLOCKS or param.source[0] == SCENE_BLOCK, \
            param.source


def test_a_sourced_parameter_is_the_resolved_description_value(fleet):
    description = read_stage(REPO / "tests" / "scenarios" / "fleet.usda")
    path = fleet.paths[0]
    wheel = description.vehicles[path].wheels[0]
    assert fleet.arrays["long_stiff"][0, 0] == pytest.approx(wheel.tire["longitudinalStiffness"], rel=1e-7)
    assert fleet.arrays["half_width"][0, 0] == pytest.approx(0.5 * wheel.wheel["width"], rel=1e-7)
    assert fleet.arrays["lat_stiff_y"][0, 0] == pytest.approx(wheel.tire["lateralStiffnessGraph"][1], rel=1e-7)


def test_sim_params_keep_the_declared_names_and_component_first_layout(fleet):
    p = SimParams.from_batch(fleet, np.float32)
    for param in PARAMS:
        value = getattr(p, param.name)
        if param.component_first:
            assert value.shape[1] == fleet.nb_vehicles and value.shape[0] == param.shape[-1], param.name
        else:
            assert value.shape == fleet.arrays[param.name].shape, param.name


def test_the_kernel_takes_every_declared_kernel_parameter_under_its_name(fleet):
    """What a subsystem declares with a kernel element type is a field of the C struct by the same name, and
    SimParams holds it under that name; nothing else of the batch is in the struct's parameter part."""
    from physxvehicle_usd.sim import compiled

    struct = dict(compiled._FIELDS)
    declared = [value for value in PARAMS + DERIVED if value.kernel is not None]
    assert len(declared) >= 50
    p = SimParams.from_batch(fleet, np.float32)
    for value in declared:
        assert struct.get(value.name) is value.kernel, value.name
        assert hasattr(p, value.name), value.name
    header = (REPO / "physxvehicle_usd" / "sim" / "_substeps_batch.h").read_text()
    for value in declared:
        assert f"*{value.name}," in header or f"*{value.name};" in header, value.name


def test_every_sim_params_attribute_is_declared(fleet):
    """The builder sets a Param's or a Derived value's name and nothing else; every declaration is set, each derived
    value by its declaration's function (but the floating type, which the builder is given)."""
    declared = [value.name for value in PARAMS + DERIVED]
    assert [value.name for value in DERIVED if value.value is None] == ["dtype"]
    assert len(declared) == len(set(declared)), sorted(n for n in declared if declared.count(n) > 1)
    for dtype in (np.float32, np.float64):
        p = SimParams.from_batch(fleet, dtype)
        assert set(vars(p)) == set(declared), (sorted(set(vars(p)) - set(declared)), sorted(set(declared) - set(vars(p))))


def test_every_sim_state_field_is_declared_and_initialised_as_declared(fleet):
    """SimState's fields are the declared states and records; initial_state gives each declared state its shape,
    type and initial value."""
    states = STATES + STEP_STATES
    names = [state.name for state in states] + [record.name for record in RECORDS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(module.STATES for module in SUBSYSTEMS if module.__name__.split(".")[-1] != "context")
    p = SimParams.from_batch(fleet, np.float32)
    s = initial_state(p)
    assert set(vars(s)) == set(names) == {f for f in SimState.__dataclass_fields__}
    for state in states:
        value = getattr(s, state.name)
        assert value.shape == state.array_shape(p.V, p.W), state.name
        assert value.dtype == (p.dtype if state.dtype is float else np.dtype(state.dtype)), state.name
        if not callable(state.initial):
            initial = np.broadcast_to(np.asarray(state.initial, dtype=value.dtype), value.shape)
            assert np.array_equal(value, initial, equal_nan=value.dtype.kind == "f"), state.name  # NaN: none yet
    assert s.engine_omega.tolist() == p.engine_idle_omega.tolist()
    assert s.current_gear.tolist() == p.initial_gear.tolist()


def test_stepping_keeps_only_declared_state(fleet):
    """A step (numpy and compiled) sets no SimState attribute that is not declared."""
    names = {state.name for state in STATES + STEP_STATES} | {record.name for record in RECORDS}
    description = read_stage(REPO / "tests" / "scenarios" / "fleet.usda")
    for dtype in (np.float32, np.float64):
        sim = Simulator.from_description(description, 1 / 60, dtype=dtype)
        sim.step()
        assert set(vars(sim.state)) == names


def test_no_name_is_both_a_parameter_and_a_state():
    """A state named as a parameter (the gearbox's switch time and its timer were once one name) would shadow it in
    the kernel's struct and mislead a reader: PhysX's names, switchTime (the parameter) and gearSwitchTime (the
    state), keep them apart."""
    parameters = {value.name for value in PARAMS + DERIVED}
    states = {state.name for state in STATES + STEP_STATES} | {record.name for record in RECORDS}
    assert parameters & states == set()
    assert "switch_time" in parameters and "gear_switch_time" in states


def test_the_kernel_takes_the_declared_states_under_their_names():
    """The C struct's state fields are the states declared with a kernel element type, in their order; those the
    kernel writes are non-const pointers, the others const."""
    from physxvehicle_usd.sim import compiled

    struct = compiled._FIELDS
    kernel_states = [(state.name, state.kernel) for state in STATES if state.kernel is not None]
    assert len(kernel_states) >= 17
    start = [name for name, _ in struct].index(kernel_states[0][0])
    assert struct[start:start + len(kernel_states)] == kernel_states
    written = {state.name for state in STATES if state.kernel_writes}
    assert {name for name, _ in kernel_states} & compiled._WRITTEN == written
    assert "target_gear" not in written and "gear_switch_time" in written and "switch_time" not in compiled._WRITTEN
