"""Unbound pxr methods for the reader's hot paths.

pxr's Usd objects check that their prim is valid on every attribute access (`Usd.Object.__getattribute__` is a
Boost.Python function of its own), which is half of what `prim.GetAttribute(name).Get()` costs. The reader holds
only prims of the open stage that traversal or a checked `GetPrimAtPath` gave it, so where it calls pxr once or
more per value (a stage of 10,000 cars means millions of such calls) it calls the class's method directly, which
skips that check. Nothing unsafe follows from a slip: USD's C++ still refuses an expired prim (it raises
UsdExpiredPrimAccessError, or answers False), only with a less friendly message.
"""
from pxr import Usd

get_attribute = Usd.Prim.GetAttribute
get_value = Usd.Attribute.Get
get_path = Usd.Prim.GetPath
authored_property_names = Usd.Prim.GetAuthoredPropertyNames
get_relationship = Usd.Prim.GetRelationship
has_authored_targets = Usd.Relationship.HasAuthoredTargets
get_targets = Usd.Relationship.GetTargets
has_api = Usd.Prim.HasAPI
get_applied_schemas = Usd.Prim.GetAppliedSchemas
is_a = Usd.Prim.IsA
get_type_name = Usd.Prim.GetTypeName
get_filtered_children = Usd.Prim.GetFilteredChildren
