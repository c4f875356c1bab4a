"""Every example of the README, the docs pages (docs/*.md) and the samples' READMEs, as a user meets it: each
page's code blocks run in order, as written, in a scratch folder holding a copy of the samples, and what a comment
says a command prints is checked. Nothing is left in the checkout.

The conventions the pages follow (docs/index.md tells readers):

- a trailing comment `# -> TEXT` on a command (or on a line of a Python block) says that it prints TEXT: the
  command's output (stdout and stderr), or the Python block's stdout, must contain it; `# exit N -> TEXT` also says
  that the command exits with status N (otherwise 0 is expected);
- a block that needs what a plain machine lacks is preceded by `<!-- docs-test: no-run (why) -->`: it is not run,
  but its syntax is checked (`bash -n`, `compile`), every `physxvehicle-usd` command in it is parsed by the command
  line itself, and the modules it imports exist;
- `sh` and `python` blocks run, and so do the `$ ` commands of a `console` block; `yaml` blocks are parsed; `text`,
  `json` and `usda` blocks are shown output or file contents, not run. A block of any other language fails the
  test, so that a new kind of example is either run or said not to be.

The README's examples run in the default run (its tour is Getting started's, but for the Gymnasium rollout); the
docs pages' examples, which take minutes together, in the soak run. Every page's commands are parsed, its Python
compiled and its no-run blocks checked in the default run.
"""
from __future__ import annotations

import ast
import importlib.util
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import click
import pytest
from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "samples").glob("*/README.md"))]
DEFAULT_RUN = {"README.md"}  # its tour (Getting started's, without the gym); every other page runs in the soak run

# a fence, at the margin or indented (in a list item), and the mark on the line before it
FENCE = re.compile(r"(?:^[ \t]*<!-- docs-test: (?P<mark>.*?) -->\n)?^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n"
                   r"(?P<body>.*?)^(?P=indent)```[ \t]*$", re.DOTALL | re.MULTILINE)
EXPECT = re.compile(r"^#\s*(?:exit (?P<exit>\d+)\s*)?(?:->\s?(?P<text>.*?))?\s*$")
RUN, PARSED, SHOWN = {"sh", "python"}, {"yaml"}, {"text", "json", "usda", ""}
NO_RUN = "no-run"

# What the README's two set-up commands do that this test does not repeat: the environment running it has the
# package (and its test extra) installed, and the test suite is what is running.
SETUP = re.compile(r"^python3 -m pip install [^&]*&&\s*")
SUITE = "python3 -m pytest"


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    mark: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUN and not (self.mark or "").startswith(NO_RUN)


def _as_shell(lang: str, body: str) -> tuple[str, str]:
    """A `console` transcript as the shell block of its commands (the `$ ` lines and their continuations); the
    output lines it shows are not checked."""
    if lang != "console":
        return lang, body
    kept, going_on = [], False
    for line in body.splitlines():
        if line.startswith("$ ") or going_on:
            kept.append(line.removeprefix("$ "))
            going_on = line.endswith("\\")
    return "sh", "\n".join(kept) + "\n"


def blocks(page: Path) -> list[Block]:
    text = page.read_text()
    found = [Block(page.relative_to(REPO).as_posix(), text.count("\n", 0, m.start("body")),
                   *_as_shell(m["lang"], textwrap.dedent(m["body"])), m["mark"]) for m in FENCE.finditer(text)]
    for block in found:
        assert block.lang in RUN | PARSED | SHOWN, f"{block.where}: a ```{block.lang} block this test does not know"
        assert block.mark is None or block.mark.startswith(NO_RUN + " ("), \
            f"{block.where}: unknown mark {block.mark!r} (write `no-run (why)`)"
    return found


# -- shell commands ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Command:
    text: str           # as written, continuation lines included
    exit: int
    expect: str | None


def _comment_at(line: str) -> int | None:
    """Where a shell line's trailing comment starts (a `#` after a blank, outside quotes), or None."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return None


def commands(body: str) -> list[Command]:
    """A shell block's commands (continuation lines joined), each with the exit status and output its comment
    states."""
    out = []
    for logical in re.sub(r"\\\n", "\\\\\0", body).splitlines():
        text = logical.replace("\\\0", "\\\n")
        if not text.strip():
            continue
        at = _comment_at(text)
        match = EXPECT.match(text[at:]) if at is not None else None
        if at is not None and text[:at].strip() == "":
            continue  # a comment line
        exit_status = int(match["exit"]) if match and match["exit"] else 0
        out.append(Command(text, exit_status, match["text"] if match and match["text"] else None))
    return out


def _our_invocations(command: str) -> list[list[str]]:
    """The `physxvehicle-usd ...` invocations in a command line, up to the first shell operator after each."""
    lexer = shlex.shlex(command.replace("\\\n", " "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words, found, current = list(lexer), [], None
    for word in words:
        if current is not None and set(word) <= set("|&;<>()"):
            found.append(current)
            current = None
        elif current is not None:
            current.append(word)
        elif word == "physxvehicle-usd":
            current = []
    return found + ([current] if current is not None else [])


def parse_with_click(args: list[str]) -> None:
    """The command line's own parse of `physxvehicle-usd ARGS` (options, choices, types), without running it."""
    from physxvehicle_usd.cli import cli

    if not args or args[0] in ("--help", "-h", "--version"):
        return
    command = cli.get_command(click.Context(cli), args[0])
    assert command is not None, f"no command {args[0]!r}"
    with command.make_context(args[0], list(args[1:]), parent=click.Context(cli, info_name="physxvehicle-usd")):
        pass


# -- the environment the examples run in -------------------------------------------------------------------------

@cache
def _entry_points() -> str:
    """A folder declaring our entry points as `pip install` writes them (an uninstalled checkout has none), so that
    nvidia_usd_validate finds our rules as the docs say it does."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_validators import entry_point_site

    return str(entry_point_site(Path(tempfile.mkdtemp(prefix="docs_entry_points_"))))


def _bin(folder: Path) -> Path:
    """Commands as the docs name them, running this checkout with this interpreter."""
    folder.mkdir()
    programs = {"physxvehicle-usd": "-m physxvehicle_usd", "nvidia_usd_validate": "-m usd_validation_nvidia",
                "python3": "", "python": ""}
    for name, args in programs.items():
        path = folder / name
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args} "$@"\n')
        path.chmod(0o755)
    return folder


def environment(folder: Path) -> dict:
    env = dict(os.environ)
    env.pop("PXR_PLUGINPATH_NAME", None)
    env["PATH"] = os.pathsep.join([str(_bin(folder / ".bin")), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), _entry_points(), env.get("PYTHONPATH")]))
    env["COLUMNS"] = "120"
    env["MPLBACKEND"] = "Agg"
    return env


def scratch(tmp_path: Path) -> Path:
    """A folder where `samples/...` means a copy of the repository's samples, as in the examples."""
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    return tmp_path


# PhysX's records (tests/conftest.py): the tests running beside these may record new PhysX runs there meanwhile
RECORDS = "tests/data/physx_records/"


def _status() -> set[str]:
    """The checkout's changed and untracked paths (nothing to compare outside a git checkout, such as an sdist), but
    the PhysX records that other tests write."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return set()
    lines = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    return {line for line in lines if not line[3:].startswith(RECORDS)}


# -- running the blocks ------------------------------------------------------------------------------------------

START, EXIT = "@@docs-test command {}@@", "@@docs-test exit@@"


def run_shell(block: Block, cwd: Path, env: dict) -> None:
    """The block as one bash script (so an `export` holds for the commands after it), each command's output and
    exit status taken apart by markers between them."""
    script = ["exec 2>&1"]
    cmds = [c for c in commands(block.body) if not SETUP.sub("", c.text).startswith(SUITE)]
    for i, command in enumerate(cmds):
        script += [f"printf '\\n{START.format(i)}\\n'", SETUP.sub("", command.text),
                   f"printf '\\n{EXIT} %s\\n' $?"]
    result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=900, check=False)
    parts = re.split("\n" + re.escape(START).replace(r"\{\}", r"(\d+)") + "\n", result.stdout)
    outputs = dict(zip(map(int, parts[1::2]), parts[2::2]))
    for i, command in enumerate(cmds):
        assert i in outputs, f"{block.where}: the block stopped before {command.text}:\n{result.stdout}"
        output, _, status = outputs[i].rpartition(EXIT)
        said = f"{block.where}: {command.text}\n{output}"
        assert int(status.strip()) == command.exit, f"exit {status.strip()}, expected {command.exit}: {said}"
        assert "Traceback" not in output and "internal error" not in output, said
        if command.expect is not None:
            assert command.expect in " ".join(output.split()), f"expected {command.expect!r}: {said}"


def python_expectations(body: str) -> list[str]:
    return [m["text"] for token in tokenize.generate_tokens(io.StringIO(body).readline)
            if token.type == tokenize.COMMENT and (m := EXPECT.match(token.string)) and m["text"]]


def run_python(block: Block, cwd: Path, env: dict) -> None:
    result = subprocess.run([sys.executable, "-c", block.body], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=900, check=False)
    said = f"{block.where}:\n{block.body}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0 and "Traceback" not in result.stderr, said
    printed = result.stdout
    for expected in python_expectations(block.body):
        at = printed.find(expected)
        assert at >= 0, f"expected {expected!r}: {said}"
        printed = printed[at + len(expected):]


def check_without_running(block: Block) -> None:
    """A block marked no-run: its syntax, and for Python the modules it imports (ours: the names it takes)."""
    if block.lang == "sh":
        result = subprocess.run(["bash", "-n"], input=block.body, capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{block.where}: {result.stderr}"
    elif block.lang == "python":
        tree = ast.parse(block.body, block.where)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] == "physxvehicle_usd":
                module = __import__(node.module, fromlist=["_"])
                missing = [a.name for a in node.names if not hasattr(module, a.name)]
                assert not missing, f"{block.where}: {node.module} has no {missing}"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                for name in names:
                    assert importlib.util.find_spec(name.split(".")[0]), f"{block.where}: no module {name}"


# -- the tests ---------------------------------------------------------------------------------------------------

def _page_param(page: Path):
    name = page.relative_to(REPO).as_posix()
    return pytest.param(page, marks=() if name in DEFAULT_RUN else (pytest.mark.soak,), id=name)


@pytest.mark.parametrize("page", [_page_param(p) for p in PAGES if any(b.lang in RUN | PARSED for b in blocks(p))])
def test_page_examples_run_as_written(page, tmp_path):
    before = _status()
    cwd = scratch(tmp_path)
    env = environment(tmp_path)
    for block in blocks(page):
        if block.runs:
            (run_shell if block.lang == "sh" else run_python)(block, cwd, env)
        elif block.lang in RUN:
            check_without_running(block)
        elif block.lang == "yaml":
            yaml = pytest.importorskip("yaml")
            assert yaml.safe_load(block.body) is not None, block.where
    left = _status() - before
    assert not left, f"the examples left files in the checkout: {sorted(left)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_page_commands_parse_and_no_run_blocks_check(page):
    """The default run's cheap pass over every page: each `physxvehicle-usd` command is one the command line
    accepts (its options, choices and types), the Python blocks compile, the no-run blocks check."""
    for block in blocks(page):
        if block.lang == "sh":
            for command in commands(block.body):
                for args in _our_invocations(command.text):
                    try:
                        parse_with_click(args)
                    except click.UsageError as error:  # a missing file is the run's business, not the parse's
                        if not isinstance(error, click.BadParameter) or "does not exist" not in str(error):
                            raise AssertionError(f"{block.where}: {command.text}: {error}") from error
        elif block.lang == "python":
            compile(block.body, block.where, "exec")
        if block.lang in RUN and not block.runs:
            check_without_running(block)


def test_the_pages_have_the_examples_this_test_runs():
    """The conventions are in use: runnable blocks on every task page, stated outputs, no-run blocks with reasons."""
    every = [b for p in PAGES for b in blocks(p)]
    assert sum(b.runs for b in every) >= 30
    stated = [c for b in every if b.lang == "sh" for c in commands(b.body) if c.expect] + \
             [e for b in every if b.lang == "python" for e in python_expectations(b.body)]
    assert len(stated) >= 30
    for page in ("getting-started.md", "simulating.md", "validating.md", "fixing.md", "rl.md", "authoring.md"):
        assert any(b.runs for b in every if b.page == f"docs/{page}"), page


def _without_comments(block: Block) -> str:
    if block.lang == "python":
        return tokenize.untokenize(t for t in tokenize.generate_tokens(io.StringIO(block.body).readline)
                                   if t.type != tokenize.COMMENT)
    return "\n".join(line[:_comment_at(line)] for line in block.body.splitlines())


def test_runnable_blocks_have_no_placeholders():
    """What a user pastes runs: no stand-in names (`assets/`, `head-node`, `/shared/...`) and no synopsis brackets
    in a block that runs."""
    placeholder = re.compile(r"\bassets/|head-node|/shared/|<[A-Za-z_]+>|\s\[--|\.\.\.\s*$", re.MULTILINE)
    for page in PAGES:
        for block in blocks(page):
            if block.runs:
                code = _without_comments(block)
                assert not placeholder.search(code), f"{block.where}: {placeholder.search(code)[0]!r}"


def test_a_stale_number_fails():
    """The check itself: a stated output that the command does not print is an error (the README's old 250 m)."""
    block = Block("stale.md", 1, "sh", "python3 -c 'print(\"travels 30.39 m\")'   # -> travels 250 m\n", None)
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(AssertionError, match="expected 'travels 250 m'"):
            run_shell(block, Path(folder), environment(Path(folder)))
    block = Block("stale.md", 1, "python", "print(0.61)   # -> 0.7\n", None)
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(AssertionError, match="expected '0.7'"):
            run_python(block, Path(folder), environment(Path(folder)))


def test_main_job_installs_the_package_alone_and_tests_install_the_test_extra():
    main_job, tests = [c.text for c in commands(blocks(REPO / "README.md")[0].body)], \
        [c.text for c in commands(blocks(REPO / "README.md")[1].body)]
    assert main_job[0].startswith("python3 -m pip install -e . && python3 -m physxvehicle_usd simulate ")
    assert tests == ["python3 -m pip install -e '.[test]' && python3 -m pytest -q"]


def test_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= 150


def test_shell_completion_scripts_generate(tmp_path):
    """docs/completion.md: click's completion scripts for the installed name (made in this process, as the program
    makes them when _PHYSXVEHICLE_USD_COMPLETE asks), and the program answering a completion request."""
    from click.shell_completion import get_completion_class

    from physxvehicle_usd.cli import cli

    for shell in ("bash", "zsh", "fish"):
        script = get_completion_class(shell)(cli, {}, "physxvehicle-usd", "_PHYSXVEHICLE_USD_COMPLETE").source()
        assert "_PHYSXVEHICLE_USD_COMPLETE" in script, shell
        if shell == "bash":
            assert subprocess.run(["bash", "-n"], input=script, text=True, check=False).returncode == 0
    request = {"_PHYSXVEHICLE_USD_COMPLETE": "bash_complete", "COMP_WORDS": "physxvehicle-usd sim", "COMP_CWORD": "1"}
    completed = subprocess.run(["physxvehicle-usd"], env={**environment(tmp_path), **request}, capture_output=True,
                               text=True, check=True).stdout
    assert completed.split() == ["plain,simulate"]


def test_sample_car_readme_states_how_far_the_sample_and_the_preset_go(tmp_path):
    """samples/car/README.md explains why `new car` and the sample differ; its two distances are what simulate says."""
    from physxvehicle_usd import simulate
    from physxvehicle_usd.author import author_vehicle, preset_spec

    preset = tmp_path / "new_car.usda"
    author_vehicle(preset_spec("car"), "m").Export(str(preset))
    text = " ".join((REPO / "samples" / "car" / "README.md").read_text().split())
    for path, label in ((REPO / "samples" / "car" / "car.usda", "the sample covers {:.2f} m"),
                        (preset, "the preset {:.2f} m")):
        result = simulate.run(path, 120, 0.016666667, controls={"accelerator": 1.0}, outputs=())
        assert label.format(result.vehicles[0].distance_m) in text, (label, result.vehicles[0].distance_m)
