"""PhysX vehicles in OpenUSD with nothing but Pixar's usd-core.

Importing the package registers the codeless vehicle schema plugin (see `plugin`).
"""
from __future__ import annotations

from .plugin import active_provider, plugin_path, register

__version__ = "0.1.0"

register()

__all__ = ["active_provider", "plugin_path", "register", "__version__"]
