"""The contact parameters as the vehicle's are: each a property-table row (P.COLLISION, P.MATERIAL, P.SCENE) the reader
resolves with its provenance, one declaration in the simulator (sim/declare.py CONTACT_PARAMS) and, under that one
name, the contact model and the solver's rows; no default below the reader. And the contact inputs the reader holds
to the no-silence rule (read/contact_inputs.py): every unusable value said with its rule code, prim and property."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd import properties as P
from physxvehicle_usd.description import Source
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.contact.patches import patch_rows
from physxvehicle_usd.sim.contact.world import generate
from physxvehicle_usd.sim.declare import CONTACT_PARAMS

CAR = SAMPLES / "car" / "car.usda"
DT = 1.0 / 60.0
CHASSIS = "/World/Car/ChassisCollision"
REST, CONTACT, ASPHALT_FRICTION = 0.01, 0.05, 0.9


def _car_with_offsets() -> Usd.Stage:
    """The sample car with its chassis box's offsets authored (PhysxCollisionAPI) and its ground's material as it is
    (staticFriction 0.9); the chassis binds no material: it meets the ground with omni.physx's default one."""
    stage = Usd.Stage.Open(str(CAR))
    chassis = stage.GetPrimAtPath(CHASSIS)
    chassis.AddAppliedSchema("PhysxCollisionAPI")
    chassis.CreateAttribute("physxCollision:contactOffset", Sdf.ValueTypeNames.Float).Set(CONTACT)
    chassis.CreateAttribute("physxCollision:restOffset", Sdf.ValueTypeNames.Float).Set(REST)
    return stage


def test_rest_offset_and_static_friction_travel_from_the_schema_to_the_solver_under_one_name():
    f32 = lambda x: float(np.float32(x))  # noqa: E731 - USD holds these as float
    # the schema's attributes (NVIDIA's PhysxCollisionAPI, UsdPhysics' MaterialAPI) -> the property table's rows
    rest_row, friction_row = P.prop(P.COLLISION, "restOffset"), P.prop(P.MATERIAL, "staticFriction")
    assert rest_row.sentinel == -math.inf and rest_row.default == 0.0 and rest_row.dim == P.LENGTH
    assert friction_row.default == 0.5 and P.full_name("PhysicsMaterialAPI", "staticFriction") == \
        "physics:staticFriction"
    # -> the resolved description, with provenance
    description = read_stage(_car_with_offsets())
    chassis = description.vehicles["/World/Car"].collision[0]
    assert chassis.offsets.values["restOffset"] == (f32(REST), Source.AUTHORED)
    assert chassis.offsets.values["contactOffset"] == (f32(CONTACT), Source.AUTHORED)
    plane = next(g for g in description.ground if g.kind == "plane")
    assert plane.offsets.values["restOffset"] == (0.0, Source.DEFAULT)
    assert plane.offsets.values["contactOffset"] == (0.02, Source.DEFAULT)
    asphalt = description.materials[plane.material].settings
    assert asphalt.values["staticFriction"] == (f32(ASPHALT_FRICTION), Source.AUTHORED)
    assert asphalt.values["frictionCombineMode"] == ("average", Source.DEFAULT)
    assert chassis.material is None  # unbound: omni.physx's default material, resolved by the reader
    assert description.defaultMaterial.settings.values["staticFriction"] == (0.5, Source.DEFAULT)
    json = description.to_json(provenance=True)
    assert json["vehicles"]["/World/Car"]["collision"][0]["restOffset"] == {"value": 0.01, "source": "authored"}
    assert json["defaultMaterial"]["staticFriction"] == {"value": 0.5, "source": "default"}
    # -> one declaration each in the simulator
    declared = {param.name: param for param in CONTACT_PARAMS}
    assert declared["rest_distance"].source == (P.COLLISION, "restOffset")
    assert declared["static_friction"].source == (P.MATERIAL, "staticFriction")
    # -> the contact model's pair tables (the chassis row against the plane: rest offsets summed, frictions averaged)
    sim = Simulator.from_description(description, DT)
    column = 0  # the ground plane: the first static shape
    assert sim.contact.rest_distance[0, column] == f32(REST) + 0.0
    assert sim.contact.static_friction[0, column] == (0.5 + f32(ASPHALT_FRICTION)) / 2
    # -> the solver's rows of a contact, under the same names
    position = sim.state.body_position.astype(float).copy()
    position[2] -= 0.29  # the chassis box's underside 0.01 m above the ground: within its contact distance
    orientation = sim.state.body_orientation.astype(float)
    contacts = generate(sim.contact, sim.ground, position, orientation)
    rows = patch_rows(sim.contact, contacts, np.array([0]), position, orientation, sim.params.length_scale)
    assert len(contacts) == 4
    assert rows.rest_distance[0, 0] == sim.contact.rest_distance[0, column]
    assert rows.static_friction[0, 0] == sim.contact.static_friction[0, column]


def test_an_unapplied_or_unknown_combine_mode_is_said_and_average_used():
    stage = Usd.Stage.Open(str(CAR))
    asphalt = stage.GetPrimAtPath("/World/Asphalt")
    asphalt.CreateAttribute("physxMaterial:frictionCombineMode", Sdf.ValueTypeNames.Token).Set("max")
    description = read_stage(stage)
    said = {(d.code, d.prim, d.property) for d in description.diagnostics}
    assert ("MATERIAL_API", "/World/Asphalt", "physxMaterial:frictionCombineMode") in said  # without the API: ignored
    assert description.materials["/World/Asphalt"].frictionCombineMode == "average"
    asphalt.AddAppliedSchema("PhysxMaterialAPI")
    assert read_stage(stage).materials["/World/Asphalt"].settings.values["frictionCombineMode"] == \
        ("max", Source.AUTHORED)
    asphalt.GetAttribute("physxMaterial:frictionCombineMode").Set("sideways")
    description = read_stage(stage)
    said = {(d.code, d.prim, d.property) for d in description.diagnostics}
    assert ("COMBINE_MODE", "/World/Asphalt", "physxMaterial:frictionCombineMode") in said
    assert description.materials["/World/Asphalt"].settings.values["frictionCombineMode"] == \
        ("average", Source.DEFAULT)


def test_a_stage_without_a_scene_has_the_default_scene_resolved_by_the_reader():
    stage = Usd.Stage.Open(str(CAR))
    stage.RemovePrim("/World/PhysicsScene")
    description = read_stage(stage)
    scene = description.defaultScene.settings
    assert description.scenes == {} and description.vehicles["/World/Car"].scene is None
    assert scene.values["bounceThreshold"] == (1e-6, Source.DEFAULT)
    assert scene.values["frictionOffsetThreshold"] == (0.04, Source.DEFAULT)
    assert scene.values["gravityMagnitude"] == (9.81, Source.DEFAULT)
    assert scene["gravityDirection"] == (0.0, 0.0, -1.0)
    sim = Simulator.from_description(description, DT)
    assert sim.contact.friction_offset_threshold.tolist() == [0.04]
    assert sim.contact.bounce_threshold.tolist() == [1e-6]


def _hostile(stage: Usd.Stage) -> set[tuple[str, str, str | None]]:
    return {(d.code, d.prim, d.property) for d in read_stage(stage).diagnostics if d.severity.value == "error"}


def test_a_mesh_whose_indices_leave_its_points_is_said_and_left_out_not_an_index_error():
    stage = Usd.Stage.Open(str(CAR))
    mesh = UsdGeom.Mesh.Define(stage, "/World/Floor")
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    mesh.CreatePointsAttr([(18, -2, 0), (22, -2, 0), (22, 2, 0), (18, 2, 0)])
    mesh.CreateFaceVertexCountsAttr([3, 3])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 0, 2, 99])
    assert ("CONTACT_MESH", "/World/Floor", "faceVertexIndices") in _hostile(stage)
    description = read_stage(stage)
    assert all(g.path != "/World/Floor" for g in description.ground)
    sim = Simulator.from_description(description, DT)
    sim.step()  # no IndexError: the mesh was never built
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 0, 2, 3])
    mesh.CreatePointsAttr([(18, -2, 0), (22, -2, 0), (22, 2, 0), (math.nan, 2, 0)])
    assert ("CONTACT_MESH", "/World/Floor", "points") in _hostile(stage)


@pytest.mark.parametrize("points", [[(20, 0, 0)] * 4, [(19, 0, 0), (20, 0, 0), (21, 0, 0), (22, 0, 0)],
                                    [(19, -1, 0), (21, -1, 0), (20, 1, 0), (20, 0, 0)]],
                         ids=["one point", "a line", "a plane"])
def test_a_convex_hull_of_no_volume_is_said_not_an_internal_error(points):
    stage = Usd.Stage.Open(str(CAR))
    mesh = UsdGeom.Mesh.Define(stage, "/World/Rock")
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr("convexHull")
    mesh.CreatePointsAttr(points)
    mesh.CreateFaceVertexCountsAttr([3, 3])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 0, 2, 3])
    assert ("CONTACT_HULL", "/World/Rock", "points") in _hostile(stage)
    Simulator.from_description(read_stage(stage), DT).step()


@pytest.mark.parametrize("name, value", [("size", math.nan), ("size", 0.0), ("size", -1.0),
                                         ("xformOp:scale", Gf.Vec3f(4.4, 0.0, 1.0)),
                                         ("xformOp:scale", Gf.Vec3f(4.4, -1.8, 1.0))])
def test_a_chassis_box_with_no_size_or_scale_is_said_and_left_out(name, value):
    stage = Usd.Stage.Open(str(CAR))
    stage.GetPrimAtPath(CHASSIS).GetAttribute(name).Set(value)
    code = "CONTACT_XFORM" if name.startswith("xformOp") else "CONTACT_SIZE"
    assert (code, CHASSIS, name) in _hostile(stage)
    assert read_stage(stage).vehicles["/World/Car"].collision == []


@pytest.mark.parametrize("name, value", [("physics:staticFriction", math.nan), ("physics:dynamicFriction", -0.1),
                                         ("physics:restitution", 1.5), ("physics:restitution", -0.5)])
def test_a_material_value_physx_cannot_take_is_said_and_the_default_material_used(name, value):
    stage = Usd.Stage.Open(str(CAR))
    stage.GetPrimAtPath("/World/Asphalt").GetAttribute(name).Set(value)
    said = _hostile(stage)
    assert ("MATERIAL_RANGE", "/World/Asphalt", name) in said
    description = read_stage(stage)
    assert "/World/Asphalt" not in description.materials
    plane = next(g for g in description.ground if g.kind == "plane")
    assert plane.material is None  # said too: MATERIAL_BINDING
    assert any(d.code == "MATERIAL_BINDING" and d.prim == plane.path for d in description.diagnostics)


def test_the_contact_inputs_of_a_sound_stage_are_unchanged_and_unsaid():
    description = read_stage(CAR)
    assert not [d for d in description.diagnostics if d.code.startswith(("CONTACT", "MATERIAL", "COMBINE"))]
    assert len(description.vehicles["/World/Car"].collision) == 1 and "/World/Asphalt" in description.materials


def test_a_tire_without_a_friction_table_has_the_default_table_the_reader_resolved():
    from physxvehicle_usd.runtime.vehicle2.build import build_vehicle_params

    stage = Usd.Stage.Open(str(CAR))
    for tire in ("/World/CarParts/FrontTire", "/World/CarParts/RearTire"):
        stage.GetPrimAtPath(tire).GetRelationship("physxVehicleTire:frictionTable").ClearTargets(True)
    description = read_stage(stage)
    table = description.defaultFrictionTable
    assert table.values["defaultFrictionValue"] == (1.0, Source.DEFAULT) and table["groundMaterials"] == []
    params = build_vehicle_params(description, "/World/Car")
    assert all(w.friction_table.default_friction == 1.0 and w.friction_table.ground_materials == ()
               for w in params.wheels)


def test_a_group_s_invert_flag_that_is_no_bool_is_said_and_read_as_omni_physx_reads_it():
    stage = Usd.Stage.Open(str(CAR))
    spec = stage.GetRootLayer().GetPrimAtPath("/World/Car/ChassisGroup")  # the schema's bool is set aside in the layer
    Sdf.AttributeSpec(spec, "physics:invertFilteredGroups", Sdf.ValueTypeNames.String).default = "yes"
    description = read_stage(stage)
    assert description.collisionGroups["/World/Car/ChassisGroup"].inverted is False  # was True: bool("yes")
    assert any(d.code == "TYPE" and d.prim == "/World/Car/ChassisGroup" and d.property ==
               "physics:invertFilteredGroups" for d in description.diagnostics)


def test_a_mirrored_mesh_is_kept_a_mirrored_box_is_said():
    stage = Usd.Stage.Open(str(CAR))
    mesh = UsdGeom.Mesh.Define(stage, "/World/Rock")  # PhysX mirrors a mesh by its mesh scale
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr("convexHull")
    mesh.CreatePointsAttr([(19, -1, 0), (21, -1, 0), (20, 1, 0), (20, 0, 1)])
    mesh.CreateFaceVertexCountsAttr([3, 3, 3, 3])
    mesh.CreateFaceVertexIndicesAttr([0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3])
    mesh.AddScaleOp().Set(Gf.Vec3f(1.0, -1.0, 1.0))
    description = read_stage(stage)
    assert any(g.path == "/World/Rock" for g in description.ground)
    assert not [d for d in description.diagnostics if d.prim == "/World/Rock" and d.code.startswith("CONTACT")]
    stage.GetPrimAtPath(CHASSIS).GetAttribute("xformOp:scale").Set(Gf.Vec3f(4.4, -1.8, 1.0))
    assert ("CONTACT_XFORM", CHASSIS, "xformOp:scale") in _hostile(stage)
