#!/usr/bin/env python
"""Coverage-guided fuzz target for the stage reader (atheris / libFuzzer).

Each input is mutated into a USD layer: as text it is parsed as .usda; its bytes also drive edits of the
sample car (which property, which value), so the fuzzer explores both the file parser's error paths and
the vehicle rules. The invariant: reading never raises, and every diagnostic names a prim.

    python fuzz/fuzz_reader.py -runs=400 -seed=1 COPY_OF_CORPUS/   # the short run of CI's soak step (tests/test_fuzz.py)
    python fuzz/fuzz_reader.py -max_total_time=3600 corpus/   # a longer run, keeping its corpus
"""
from __future__ import annotations

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    from pxr import Sdf, Usd

    from physxvehicle_usd import properties as P
    from physxvehicle_usd.read import read_stage

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "car", "car.usda")
_FOLDER = tempfile.mkdtemp(prefix="fuzz_reader_")
_PROPS = [p for p in P.TABLE_ROWS if p.schema in P.ALL_SCHEMAS]
_CAR = Usd.Stage.Open(SAMPLE).Flatten()
_TARGET_PRIMS = [str(spec.path) for spec in _CAR.rootPrims[0].nameChildren] + ["/World/Car"]


def _check(description) -> None:
    for diagnostic in description.diagnostics:
        if not diagnostic.prim:
            raise AssertionError(f"diagnostic without a prim: {diagnostic}")


def _as_text(data: bytes) -> None:
    path = os.path.join(_FOLDER, "input.usda")
    with open(path, "wb") as handle:
        handle.write(b"#usda 1.0\n" + data)
    try:
        description = read_stage(path)
    except Exception as exc:  # only InputError is allowed out: the file cannot be opened at all
        if type(exc).__name__ != "InputError":
            raise
        return
    _check(description)


def _as_edits(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.TransferContent(_CAR)
    stage = Usd.Stage.Open(layer)
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        prop = _PROPS[fdp.ConsumeIntInRange(0, len(_PROPS) - 1)]
        prim = stage.GetPrimAtPath(_TARGET_PRIMS[fdp.ConsumeIntInRange(0, len(_TARGET_PRIMS) - 1)])
        if not P.is_schema_property(prop.schema, prop.base):
            continue
        name = P.full_name(prop.schema, prop.base, "brakes0" if "__INSTANCE_NAME__" in P._full_names(prop.schema)[prop.base] else None)
        choice = fdp.ConsumeIntInRange(0, 4)
        try:
            if choice == 0:
                prim.CreateAttribute(name, Sdf.ValueTypeNames.Float).Set(fdp.ConsumeFloat())
            elif choice == 1:
                prim.CreateAttribute(name, Sdf.ValueTypeNames.Int).Set(fdp.ConsumeInt(4))
            elif choice == 2:
                prim.CreateAttribute(name, Sdf.ValueTypeNames.FloatArray).Set([fdp.ConsumeFloat() for _ in range(fdp.ConsumeIntInRange(0, 12))])
            elif choice == 3:
                prim.CreateRelationship(name).SetTargets([Sdf.Path(_TARGET_PRIMS[fdp.ConsumeIntInRange(0, len(_TARGET_PRIMS) - 1)])])
            else:
                prim.ApplyAPI(prop.schema) if prop.schema not in P.MULTIPLE_APPLY else prim.ApplyAPI(prop.schema, "brakes0")
        except Exception:  # noqa: BLE001 - USD refused the edit itself (e.g. a type clash): not our reader's business
            continue
    _check(read_stage(stage))


def test_one_input(data: bytes) -> None:
    if data[:1] == b"t":
        _as_text(data[1:])
    else:
        _as_edits(data[1:])


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
