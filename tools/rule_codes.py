"""The finding codes the package reports, collected from its source: the one place each code is written is the call
that reports it (`sink.error("V07", prim, "...")`, `_finding(Severity.WARNING, "A06", ...)`,
`Diagnostic(code=CODE, ...)`), so the docs' table of codes is read from those calls rather than kept beside them.

    python tools/rule_codes.py        # the table, as the docs show it

The docs site builds its "Rule codes" page with `markdown_tables()` (tools/docs_hooks.py).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "physxvehicle_usd"
CODE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")
REPORTERS = {"error": "error", "warning": "warning", "info": "info", "add": None, "_finding": None,
             "Diagnostic": None}


RANGE_CODE = "range_code"  # the property table's column: a call reporting `row.range_code` reports a range code


@dataclass
class Code:
    code: str
    severities: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)


def _constants(tree: ast.Module) -> dict[str, str]:
    """A module's top-level NAME = "STRING" assignments."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.value
    return out


def _text(node: ast.AST | None, constants: dict[str, str]) -> str | None:
    """A string argument as the reader sees it: literal parts kept, each interpolated value shown as `…`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in node.values)
    if isinstance(node, ast.BoolOp):  # `row.range_code or "RANGE"`: the literal alternative
        return next((t for t in (_text(v, constants) for v in node.values) if t is not None), None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, constants), _text(node.right, constants)
        return (left or "…") + (right or "…") if left is not None or right is not None else None
    return None


def _severity(call: ast.Call) -> str | None:
    for node in [*call.args, *(k.value for k in call.keywords if k.arg == "severity")]:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Severity":
            return node.attr.lower()
    return None


def _fixed_severities(tree: ast.Module) -> dict[str, str]:
    """A module's own reporting helpers that take no severity (`_finding(code, prim, message)` in the profiles):
    the one severity each writes."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in REPORTERS and \
                "severity" not in [a.arg for a in node.args.args]:
            severities = {n.attr.lower() for n in ast.walk(node) if isinstance(n, ast.Attribute)
                          and isinstance(n.value, ast.Name) and n.value.id == "Severity"}
            if len(severities) == 1:
                out[node.name] = severities.pop()
    return out


def _finding(call: ast.Call, constants: dict[str, str],
             fixed: dict[str, str]) -> tuple[str, str | None, str | None] | None:
    """(code, severity, message) of a reporting call, or None when it reports no literal code. The message is the
    `message=` argument, else the first argument after the code that reads as a sentence (a prim path has no
    space)."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    if name not in REPORTERS:
        return None
    args = [a for a in call.args if not (isinstance(a, ast.Attribute) and getattr(a.value, "id", "") == "Severity")]
    keywords = {k.arg: k.value for k in call.keywords}
    code_node = keywords.get("code", args[0] if args else None)
    if any(isinstance(n, ast.Attribute) and n.attr == RANGE_CODE for n in ast.walk(code_node or ast.Pass())):
        code = RANGE_CODE  # the code of the property whose value it reports, from the property table
    else:
        code = _text(code_node, constants)
    if code is None or code != RANGE_CODE and (not CODE.match(code) or len(code) < 3):
        return None
    message = _text(keywords.get("message"), constants)
    if message is None and code_node in args:
        message = next((t for t in (_text(a, constants) for a in args[args.index(code_node) + 1:])
                        if t is not None and " " in t), None)
    return code, REPORTERS[name] or _severity(call) or fixed.get(name), message


def collect(package: Path = PACKAGE) -> dict[str, Code]:
    """Every code a reporting call of the package writes, with its severities, modules and messages."""
    codes: dict[str, Code] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        constants, fixed = _constants(tree), _fixed_severities(tree)
        module = path.relative_to(package.parent).with_suffix("").as_posix().replace("/", ".")
        for node in ast.walk(tree):
            found = isinstance(node, ast.Call) and _finding(node, constants, fixed)
            if not found:
                continue
            code, severity, message = found
            entry = codes.setdefault(code, Code(code))
            if severity:
                entry.severities.add(severity)
            entry.modules.add(module)
            if message and message not in entry.messages:
                entry.messages.append(" ".join(message.split()))
    return dict(sorted(codes.items(), key=lambda item: _order(item[0])))


def _order(code: str) -> tuple:
    match = re.fullmatch(r"([A-Z]+)(\d+)", code)
    return (0, match.group(1), int(match.group(2))) if match else (1, code, 0)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_tables(range_codes: dict[str, list[str]], repaired: set[str] | frozenset = frozenset(),
                    package: Path = PACKAGE) -> str:
    """The codes reported by name (severity, what the call says with `…` where it fills in a value, whether `fix`
    repairs it, the module reporting it), then the property table's range codes with their properties."""
    codes = collect(package)
    by_range = codes.pop(RANGE_CODE, None)
    rows = ["| code | severity | what it says | `fix` | reported by |", "| --- | --- | --- | --- | --- |"]
    for code in codes.values():
        said = "<br>".join(_cell(m) for m in code.messages[:3]) or "(a message made of the values it reports)"
        rows.append(f"| `{code.code}` | {', '.join(sorted(code.severities))} | {said} | "
                    f"{'repair' if code.code in repaired else ''} | "
                    f"{', '.join(f'`{m}`' for m in sorted(code.modules))} |")
    lines = ["\n".join(rows), ""]
    if by_range:
        lines += ["A value outside its property's range is reported with that property's code (the property table's "
                  f"`{RANGE_CODE}`), by " + ", ".join(f"`{m}`" for m in sorted(by_range.modules)) + " as "
                  + " or ".join(sorted(by_range.severities)) + ": "
                  + "; ".join(f"*{_cell(m)}*" for m in by_range.messages) + ".", "",
                  "| code | properties | `fix` |", "| --- | --- | --- |"]
        for code in sorted(range_codes, key=_order):
            lines.append(f"| `{code}` | {', '.join(f'`{p}`' for p in range_codes[code])} | "
                         f"{'repair' if code in repaired else ''} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_tables({}))
