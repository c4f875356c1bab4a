"""Registration of the codeless vehicle schema plugin with usd-core.

The package ships `resources/` (generated from schema/schema.usda by tools/generate_schema.py).
Importing the package registers it once. When another plugin already provides the same schema
identifiers -- NVIDIA's physx-usd-schemas wheel, or Omniverse's compiled physxSchema -- registering
ours as well would make USD report duplicate schema identifiers, so we step aside and the package
works on theirs: the schemas are wire-compatible, so nothing else changes.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from pxr import Plug

RESOURCES = Path(__file__).resolve().parent / "resources"
PLUGIN_NAME = "physxVehicleUsd"
# Any one identifier tells us whether the vehicle family is already declared by someone.
_PROBE_IDENTIFIER = "PhysxVehicleAPI"

_lock = threading.Lock()
_provider: "SchemaProvider | None" = None


@dataclass(frozen=True)
class SchemaProvider:
    """Which plugin supplies the vehicle schemas in this process."""

    plugin_name: str
    path: str
    ours: bool


def plugin_path() -> Path:
    """The folder to put on PXR_PLUGINPATH_NAME so that programs which never import us find the schemas."""
    return RESOURCES


def _declaring_plugin(identifier: str):
    for plugin in Plug.Registry().GetAllPlugins():
        types = plugin.metadata.get("Types", {}) if plugin.metadata else {}
        for info in types.values():
            if info.get("schemaIdentifier") == identifier or info.get("alias", {}).get("UsdSchemaBase") == identifier:
                return plugin
    return None


def register() -> SchemaProvider:
    """Register our plugin unless another provides the vehicle schemas already; idempotent."""
    global _provider
    with _lock:
        if _provider is not None:
            return _provider
        existing = _declaring_plugin(_PROBE_IDENTIFIER)
        if existing is None:
            Plug.Registry().RegisterPlugins(str(RESOURCES))
            existing = _declaring_plugin(_PROBE_IDENTIFIER)
        if existing is None:  # pragma: no cover - a broken install
            raise RuntimeError(f"the vehicle schema plugin in {RESOURCES} could not be registered")
        _provider = SchemaProvider(
            plugin_name=existing.name,
            path=existing.path,
            ours=existing.name == PLUGIN_NAME,
        )
        return _provider


def active_provider() -> SchemaProvider:
    """The plugin whose vehicle schemas this process uses (registering ours first if needed)."""
    return register()
