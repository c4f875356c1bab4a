"""Registration of the codeless vehicle schema plugin with usd-core.

The package ships `resources/` (generated from schema/schema.usda by tools/generate_schema.py).
Importing the package registers it once. When another plugin already provides the same schema
identifiers -- NVIDIA's physx-usd-schemas wheel, or Omniverse's compiled physxSchema -- registering
ours as well would make USD report duplicate schema identifiers, so we step aside and the package
works on theirs: the schemas are wire-compatible, so nothing else changes.

USD cannot hold two plugins that declare the same schema identifiers: it raises its complaints about
the second (a `Tf.ErrorException` listing every duplicate, at whichever pxr call happens to come next),
and its schema registry then takes each schema from either declaration, in an order that changes from run
to run (see `_settle`). That happens when both are registered by USD itself (ours and NVIDIA's resources
both on PXR_PLUGINPATH_NAME, or ours there while `physx_usd_schemas` is imported), or when
`physx_usd_schemas` is imported after ours was registered. In each case we take USD's complaints in
(they change nothing: the schemas agree), say in one line on stderr that the schemas are declared twice,
which plugin the package reports (the same every run) and which one to remove, and carry on; no
traceback reaches the user.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from pxr import Plug, Tf, Usd

RESOURCES = Path(__file__).resolve().parent / "resources"
PLUGIN_NAME = "physxVehicleUsd"
# Any one identifier tells us whether the vehicle family is already declared by someone.
_PROBE_IDENTIFIER = "PhysxVehicleAPI"
_NVIDIA_PACKAGE = "physx_usd_schemas"

_lock = threading.Lock()
_provider: "SchemaProvider | None" = None


@dataclass(frozen=True)
class SchemaProvider:
    """Which plugin supplies the vehicle schemas in this process."""

    plugin_name: str
    path: str
    ours: bool
    # The other plugins that declare the vehicle schemas too (USD takes each schema from any of the declarations).
    ignored: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: the plugin in use, and where it comes from (and the others that declare the schemas too)."""
        line = f"{self.plugin_name} ({'physxvehicle-usd' if self.ours else 'external'}) at {self.path}"
        return line + (f" (declared by {', '.join(self.ignored)} too)" if self.ignored else "")


def plugin_path() -> Path:
    """The folder to put on PXR_PLUGINPATH_NAME so that programs which never import us find the schemas."""
    return RESOURCES


def _quietly(call):
    """`call()`, with USD's complaints about duplicate declarations taken in: they surface as a
    Tf.ErrorException at the first pxr call after the duplicate registration, and once raised they are gone,
    so a second call returns normally."""
    try:
        return call()
    except Tf.ErrorException:
        return call()


def _declaring_plugins(identifier: str) -> list:
    found = []
    for plugin in _quietly(lambda: Plug.Registry().GetAllPlugins()):
        types = plugin.metadata.get("Types", {}) if plugin.metadata else {}
        for info in types.values():
            if info.get("schemaIdentifier") == identifier or info.get("alias", {}).get("UsdSchemaBase") == identifier:
                found.append(plugin)
                break
    return found


def _on_plugin_path(path: str) -> bool:
    """Whether a plugin came from PXR_PLUGINPATH_NAME (an entry names its plugInfo.json or a folder at or
    below the plugin's root) rather than from an explicit registration."""
    root = Path(path).resolve()
    for entry in filter(None, os.environ.get("PXR_PLUGINPATH_NAME", "").split(os.pathsep)):
        entry_path = Path(entry).resolve()
        if entry_path.name == "plugInfo.json":
            entry_path = entry_path.parent
        if entry_path == root or root in entry_path.parents:
            return True
    return False


def _settle(plugins: list) -> SchemaProvider:
    """Several plugins declare the vehicle schemas: take in USD's complaints, and say in one line that they do, which
    one the package reports and what to remove.

    Which of the declarations USD uses is not ours to pick, nor is it stable: its schema registry takes, for each
    schema identifier, the first of the declaring types in TfType order, which is the order of their addresses in
    memory. That changes from run to run with USD's threaded plugin registration (and may differ from schema to
    schema), so the package does not report it. It reports what stays once the duplicate is removed as advised: the
    external plugin (NVIDIA's, Omniverse's), the first by path when there are several. The declarations agree
    (tests/test_schema_plugin.py), so what is read is the same either way."""
    _quietly(lambda: Usd.SchemaRegistry())
    external = sorted((p for p in plugins if p.name != PLUGIN_NAME), key=lambda p: p.path)
    kept = external[0] if external else plugins[0]
    others = [p for p in plugins if p.path != kept.path]
    provider = SchemaProvider(kept.name, kept.path, kept.name == PLUGIN_NAME, tuple(p.name for p in others))
    if others:
        _report_duplicate(provider, kept, others)
    return provider


def _report_duplicate(provider: SchemaProvider, kept, others: list) -> None:
    ours = [p for p in [*others, kept] if p.name == PLUGIN_NAME]
    remove = ours[0] if ours else others[0]
    if _on_plugin_path(remove.path):
        advice = f"remove {remove.path} from PXR_PLUGINPATH_NAME"
    elif remove.name == PLUGIN_NAME:
        advice = f"import {_NVIDIA_PACKAGE} before physxvehicle_usd"
    else:
        advice = f"stop registering {remove.path}"
    also = ", ".join(f"{p.name} at {p.path}" for p in others)
    sys.stderr.write(
        f"physxvehicle-usd: the vehicle schemas are declared twice, by {kept.name} at {kept.path} and by {also}; "
        f"the two agree, and USD takes each schema from either one; the package reports {provider.plugin_name}, "
        f"which stays when you {advice}\n"
    )


class _LateImportLoader(importlib.abc.Loader):
    """Runs physx_usd_schemas' own loader; when its registration collides with ours (it was imported after
    ours was registered), USD has both declarations of the vehicle schemas (and theirs for everything else), and
    we take in USD's complaints instead of letting them abort the import."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        try:
            self._loader.exec_module(module)
        except Tf.ErrorException:
            global _provider
            with _lock:
                plugins = _declaring_plugins(_PROBE_IDENTIFIER)
                _provider = _settle(plugins)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _LateImportGuard(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != _NVIDIA_PACKAGE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _LateImportLoader(spec.loader)
        return spec


def _guard_late_import() -> None:
    if _NVIDIA_PACKAGE not in sys.modules and not any(isinstance(f, _LateImportGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _LateImportGuard())


def register() -> SchemaProvider:
    """Register our plugin unless another provides the vehicle schemas already; idempotent."""
    global _provider
    with _lock:
        if _provider is not None:
            return _provider
        plugins = _declaring_plugins(_PROBE_IDENTIFIER)
        if not plugins:
            _quietly(lambda: Plug.Registry().RegisterPlugins(str(RESOURCES)))
            plugins = _declaring_plugins(_PROBE_IDENTIFIER)
        if not plugins:  # pragma: no cover - a broken install
            raise RuntimeError(f"the vehicle schema plugin in {RESOURCES} could not be registered")
        if len(plugins) > 1:
            _provider = _settle(plugins)
        else:
            only = plugins[0]
            _provider = SchemaProvider(plugin_name=only.name, path=only.path, ours=only.name == PLUGIN_NAME)
        if _provider.ours:
            _guard_late_import()
        return _provider


def active_provider() -> SchemaProvider:
    """The plugin whose vehicle schemas this process uses (registering ours first if needed)."""
    return register()
