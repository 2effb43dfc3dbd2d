"""A first install is quiet: the project's metadata is in the form its build backend asks for,
so a new user's `./dev test` shows no deprecation banner that reads like a broken install."""
from __future__ import annotations

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
