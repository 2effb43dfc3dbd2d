"""A first install is quiet: the project's metadata is in the form its build backend asks for,
so a new user's `./dev test` shows no deprecation banner that reads like a broken install."""
from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

from packaging.licenses import canonicalize_license_expression
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_licence_is_an_spdx_expression():
    # a table ({ text = "MIT" }) makes setuptools 77 and later print a deprecation banner on
    # every install
    licence = PYPROJECT["project"]["license"]
    assert isinstance(licence, str)
    assert canonicalize_license_expression(licence) == licence == "MIT"


def test_the_build_asks_for_a_setuptools_that_reads_it():
    # setuptools before 77 rejects a string licence: the lowest version the build may pick
    # must read it
    [setuptools] = [Requirement(r) for r in PYPROJECT["build-system"]["requires"]
                    if Requirement(r).name == "setuptools"]
    lowest = min(Version(s.version) for s in setuptools.specifier if s.operator == ">=")
    assert lowest >= Version("77")
    assert not setuptools.specifier.contains("76.1.0")


# A stand-in for python, so ./dev's install step runs in a moment: `-m venv DIR` makes
# DIR/bin/python (this script) and a DIR/bin/riichi-referee that says how it was called,
# `-m pip` prints a build backend's banner (and fails when PIP_FAILS is set), `-m pytest`
# says it ran and where bytecode goes.
STUB_PYTHON = """#!/bin/sh
case "$1 $2" in
    "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" &&
               printf '#!/bin/sh\\necho "riichi-referee $*"\\n' > "$3/bin/riichi-referee" &&
               chmod +x "$3/bin/riichi-referee" ;;
    "-m pip") echo "BuildBackendWarning: Editable installation. !! careful !!" >&2
              [ -z "$PIP_FAILS" ] ;;
    "-m pytest") echo "pytest ran"
                 echo "no bytecode: [$PYTHONDONTWRITEBYTECODE] prefix: [$PYTHONPYCACHEPREFIX]" ;;
esac
"""


def run_dev(tmp_path, *args, **env):
    shutil.copy(ROOT / "dev", tmp_path / "dev")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    stub = tmp_path / "stub-python"
    stub.write_text(STUB_PYTHON)
    stub.chmod(0o755)
    return subprocess.run([str(tmp_path / "dev"), *(args or ["test"])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON": str(stub), **env})


def test_dev_installs_without_showing_the_build_backends_banners(tmp_path):
    done = run_dev(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pytest ran" in done.stdout
    assert "Editable installation" not in done.stdout + done.stderr
    assert (tmp_path / ".venv" / ".installed").exists()


def test_dev_shows_pips_output_when_the_install_fails(tmp_path):
    done = run_dev(tmp_path, PIP_FAILS="1")
    assert done.returncode != 0
    assert "pytest ran" not in done.stdout
    assert "Editable installation" in done.stderr and "installing into .venv failed" in done.stderr
    assert not (tmp_path / ".venv" / ".installed").exists()


def test_dev_test_keeps_bytecode_in_the_venv_where_the_checkout_is_to_have_none(tmp_path):
    # Each process the suite starts would compile every module it imports; the bytecode goes
    # to .venv, not beside the sources.
    done = run_dev(tmp_path, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX="")
    assert done.returncode == 0, done.stderr
    assert f"no bytecode: [] prefix: [{tmp_path / '.venv' / 'pycache'}]" in done.stdout
    # where bytecode may go beside the sources, nothing changes
    done = run_dev(tmp_path, PYTHONDONTWRITEBYTECODE="", PYTHONPYCACHEPREFIX="")
    assert "no bytecode: [] prefix: []" in done.stdout


def test_dev_runs_any_command_of_the_readme_without_activating_the_environment(tmp_path):
    done = run_dev(tmp_path, "riichi-referee", "replay", "game.jsonl", "--ruleset", "ema2012")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "riichi-referee replay game.jsonl --ruleset ema2012\n"


def test_the_readme_says_how_to_reach_riichi_referee_and_keeps_its_quick_start():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    assert "./dev demo     # set up .venv" in quick and "./dev test     # set up .venv" in quick
    commands = readme.split("## Commands", 1)[1].split("```", 1)[0]
    assert "source .venv/bin/activate" in commands and "./dev riichi-referee" in commands
