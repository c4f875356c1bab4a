"""The codeless schema plugin: conformance with NVIDIA's physx-usd-schemas, registration, plugin path."""
from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_python
from schema_dump import FAMILY

DUMP = str(Path(__file__).with_name("schema_dump.py"))


def _dump(mode: str, env: dict | None = None) -> dict:
    result = run_python([DUMP, mode], env=env)
    assert result.returncode == 0, result.stderr
    assert "Error" not in result.stderr and "Coding" not in result.stderr, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def nvidia() -> dict:
    return _dump("nvidia")


@pytest.fixture(scope="module")
def ours() -> dict:
    return _dump("ours")


def test_every_vehicle_class_matches_physx_usd_schemas(nvidia, ours):
    assert len(FAMILY) == 23
    matched = 0
    mismatches = []
    for name in FAMILY:
        theirs, mine = nvidia[name], ours[name]
        assert theirs is not None, f"{name} missing from physx-usd-schemas"
        assert mine is not None, f"{name} missing from our plugin"
        for field in ("kind", "builtinAPISchemas"):
            if theirs[field] != mine[field]:
                mismatches.append(f"{name}.{field}: {mine[field]!r} != {theirs[field]!r}")
        for prop, expected in theirs["properties"].items():
            got = mine["properties"].get(prop)
            if got != expected:
                mismatches.append(f"{name} {prop}: {got!r} != {expected!r}")
            else:
                matched += 1
        extra = set(mine["properties"]) - set(theirs["properties"])
        mismatches.extend(f"{name} {prop}: not in physx-usd-schemas" for prop in sorted(extra))
    total = sum(len(nvidia[n]["properties"]) for n in FAMILY)
    print(f"schema conformance: {matched}/{total} properties of {len(FAMILY)} classes match physx-usd-schemas")
    assert not mismatches, "\n".join(mismatches)
    assert matched == total > 120


def test_plugin_path_alone_makes_the_schemas_known():
    path = subprocess.run(
        [sys.executable, "-m", "physxvehicle_usd", "plugin-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(path, "plugInfo.json").is_file()
    probe = """
import sys
from pxr import Usd, Sdf
assert 'physxvehicle_usd' not in sys.modules
reg = Usd.SchemaRegistry()
engine = reg.FindAppliedAPIPrimDefinition('PhysxVehicleEngineAPI')
print(engine.GetAttributeDefinition('physxVehicleEngine:peakTorque').GetFallbackValue())
stage = Usd.Stage.CreateInMemory()
table = stage.DefinePrim('/Table', 'PhysxVehicleTireFrictionTable')
print(table.IsA(Usd.Typed), table.GetAttribute('defaultFrictionValue').Get())
car = stage.DefinePrim('/Car')
car.ApplyAPI('PhysxVehicleBrakesAPI', 'brakes0'); car.ApplyAPI('PhysxVehicleBrakesAPI', 'brakes1')
print(car.GetAttribute('physxVehicleBrakes:brakes1:maxBrakeTorque').Get())
"""
    result = run_python(["-c", probe], env={"PXR_PLUGINPATH_NAME": path})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["-1.0", "True", "1.0", "0.0"]
    assert result.stderr.strip() == ""


def test_plugin_path_dump_equals_import_dump(ours):
    path = str(REPO / "physxvehicle_usd" / "resources")
    assert _dump("env", env={"PXR_PLUGINPATH_NAME": path}) == ours


def test_steps_aside_when_physx_usd_schemas_came_first(nvidia):
    result = run_python([DUMP, "both"])
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == ['{"provider": "physxSchema"}'], result.stderr
    assert json.loads(result.stdout) == nvidia


def test_registration_is_idempotent_and_reports_ours():
    probe = """
import physxvehicle_usd
from physxvehicle_usd import plugin
first = physxvehicle_usd.active_provider()
second = plugin.register()
assert first is second and first.ours, first
print(first.plugin_name)
"""
    result = run_python(["-c", probe])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "physxVehicleUsd"
    assert result.stderr.strip() == ""


def test_generated_resources_are_fresh(tmp_path):
    result = run_python([str(REPO / "tools" / "generate_schema.py"), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    for name in ("generatedSchema.usda", "plugInfo.json"):
        committed = (REPO / "physxvehicle_usd" / "resources" / name).read_text()
        assert (tmp_path / name).read_text() == committed, f"{name} is stale: run python tools/generate_schema.py"


def test_property_docs_are_written_from_the_property_table():
    """Each vehicle property's doc says what it means, its unit, default, sentinel and range (from
    properties.py), and the registered schema carries it whole (its userDocBrief, which the prim definition's
    GetDocumentation() returns), not a first sentence."""
    checked = run_python([str(REPO / "tools" / "generate_schema.py"), "--check-docs"])
    assert checked.returncode == 0, checked.stderr
    probe = """
import json
from pxr import Usd
from physxvehicle_usd import properties as P
docs = {}
for prop in P.TABLE_ROWS:
    definition = Usd.SchemaRegistry().FindConcretePrimDefinition(prop.schema) or \\
        Usd.SchemaRegistry().FindAppliedAPIPrimDefinition(prop.schema)
    name = P._full_names(prop.schema)[prop.base]
    docs[prop.schema + "." + prop.base] = definition.GetPropertyDefinition(name).GetDocumentation()
print(json.dumps(docs))
"""
    result = run_python(["-c", probe])
    assert result.returncode == 0, result.stderr
    docs = json.loads(result.stdout)
    assert len(docs) > 120
    damping = docs["PhysxVehicleAPI.lateralStickyTireDamping"]
    assert damping.startswith("How fast a sticky tire's lateral speed is damped") and "Unit: 1/s." in damping
    assert "Valid range: [0, inf)." in damping and "Out of range: error V80." in damping
    torque = docs["PhysxVehicleEngineAPI.peakTorque"]
    assert torque.startswith("The engine's maximum torque") and "Unit: N*m (SI; authored values" in torque
    assert "Sentinel: -1" in torque and "500" in torque
    assert not [key for key, doc in docs.items() if " of the " in doc.split(".")[0] and "component" in doc.split(".")[0]]


# Two plugins in one process: every way a user can bring NVIDIA's physx-usd-schemas and ours together. The
# probe imports them in the given order, then reads the sample car; the process must finish cleanly, say at most
# one line on stderr, and read the car with whichever plugin USD kept.
_TWO_PLUGINS_PROBE = """
import sys
order = sys.argv[1]
if order == "nvidia-first":
    import physx_usd_schemas.PhysxSchema
if order == "nvidia-by-path-first":
    from pxr import Plug
    Plug.Registry().RegisterPlugins(sys.argv[2])
import physxvehicle_usd
if order == "nvidia-after":
    import physx_usd_schemas.PhysxSchema
from physxvehicle_usd.read import read_stage
description = read_stage(sys.argv[3])
print(physxvehicle_usd.active_provider().plugin_name, len(description.vehicles))
from pxr import Usd
if not Usd.SchemaRegistry.GetTypeFromSchemaTypeName("PhysxRigidBodyAPI").isUnknown:
    stage = Usd.Stage.CreateInMemory()
    prim = stage.DefinePrim("/Body")
    prim.ApplyAPI("PhysxRigidBodyAPI")  # NVIDIA's other schemas still work
    print(prim.GetAttribute("physxRigidBody:linearDamping").IsValid())
"""


@functools.cache
def _nvidia_resources() -> str:
    result = run_python(["-c", "import physx_usd_schemas.PhysxSchema as S; print(S.schema_path())"])
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# Which plugin the package reports, and the one line it says, must not depend on USD's threaded plugin registration
# (its schema registry takes each duplicated schema from either declaration, by their order in memory): each case
# runs with one USD worker thread and with the default count.
@pytest.mark.parametrize("threads", ["1", "default"])
@pytest.mark.parametrize("on_path,order,provider,removes", [
    # nothing on the plugin path: NVIDIA's is registered first, ours steps aside
    ("", "nvidia-first", "physxSchema", None),
    ("", "nvidia-by-path-first", "physxSchema", None),
    # NVIDIA's imported after ours: both declare the schemas, the package reports NVIDIA's (which stays)
    ("", "nvidia-after", "physxSchema", "import physx_usd_schemas before physxvehicle_usd"),
    # ours on PXR_PLUGINPATH_NAME, as the README says for usdview
    ("ours", "alone", "physxVehicleUsd", None),
    ("ours", "nvidia-first", "physxSchema", "remove {ours} from PXR_PLUGINPATH_NAME"),
    ("ours", "nvidia-after", "physxSchema", "remove {ours} from PXR_PLUGINPATH_NAME"),
    # NVIDIA's on the plugin path (registered by path)
    ("nvidia", "alone", "physxSchema", None),
    ("nvidia", "nvidia-after", "physxSchema", None),
    # both on the plugin path, in either order
    ("ours:nvidia", "alone", "physxSchema", "remove {ours} from PXR_PLUGINPATH_NAME"),
    ("nvidia:ours", "nvidia-first", "physxSchema", "remove {ours} from PXR_PLUGINPATH_NAME"),
])
def test_two_plugins_in_one_process(on_path, order, provider, removes, threads):
    ours, nvidia = str(REPO / "physxvehicle_usd" / "resources"), _nvidia_resources()
    paths = {"": "", "ours": ours, "nvidia": nvidia, "ours:nvidia": f"{ours}:{nvidia}", "nvidia:ours": f"{nvidia}:{ours}"}
    env = {"PXR_PLUGINPATH_NAME": paths[on_path]} if on_path else {}
    if threads != "default":  # and without USD's banner that says the setting was overridden
        env.update(PXR_WORK_THREAD_LIMIT=threads, TF_ENV_SETTING_ALERTS_ENABLED="0")
    car = str(REPO / "samples" / "car" / "car.usda")
    result = run_python(["-c", _TWO_PLUGINS_PROBE, order, nvidia, car], env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Error in" not in result.stderr, result.stderr
    out = result.stdout.split()
    assert out[0] == provider, result.stdout
    assert out[1] == "1", result.stdout  # the car was read
    assert out[2:] == (["True"] if "nvidia" in order or "nvidia" in on_path else []), result.stdout
    lines = result.stderr.strip().splitlines()
    if removes is None:
        assert lines == [], result.stderr
    else:
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("physxvehicle-usd: the vehicle schemas are declared twice"), lines[0]
        advice = f"the package reports {provider}, which stays when you {removes.format(ours=ours)}"
        assert advice in lines[0], lines[0]
