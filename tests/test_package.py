"""The package as pip builds it from pyproject.toml: every floor of bpe_core,
the sample corpora and the tiktoken plugin mapped in from where the
repository keeps them, and requirements that agree with requirements.txt,
which the app installs, the project itself included (`-e .`).
(tests/test_installed_package.py tries the wheel.)"""

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tiktoken_ext.openai_public
from packaging.requirements import Requirement

from bpe_core.tiktoken_bridge.plugin import ZOO_NAMES
from tests.conftest import ROOT
from tests.test_layout import FLOORS

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PROJECT["tool"]["setuptools"]


def requirements_in(file_name: str) -> dict[str, Requirement]:
    lines = (line.split("#")[0].strip() for line in (ROOT / file_name).read_text(encoding="utf-8").splitlines())
    lines = (line for line in lines if line and not line.startswith("-e "))  # `-e .`: the project itself
    return {requirement.name: requirement for requirement in map(Requirement, lines)}


def test_the_wheel_holds_every_floor_and_the_folders_mapped_into_it():
    mapped = SETUPTOOLS["package-dir"]
    assert SETUPTOOLS["packages"] == ["bpe_core", *(f"bpe_core.{floor}" for floor in FLOORS), *mapped]
    assert mapped == {"bpe_core.corpora.sample_corpora": "sample_corpora",
                      "tiktoken_ext": "bpe_core/tiktoken_bridge/tiktoken_ext"}
    assert (ROOT / "sample_corpora" / "catalog.json").is_file()
    assert (ROOT / mapped["tiktoken_ext"] / "bpe_core.py").is_file()
    assert not (ROOT / mapped["tiktoken_ext"] / "__init__.py").exists()  # tiktoken_ext is a namespace package


def test_the_packages_requirements_are_the_apps():
    """Each of the package's requirements, its extras' too, is required alike by
    requirements.txt (or requirements-dask.txt); and everything the app
    installs before its tests is in the package or one of its extras."""
    app = requirements_in("requirements.txt") | requirements_in("requirements-dask.txt")
    metadata = PROJECT["project"]
    listed = [*metadata["dependencies"], *(line for extra in metadata["optional-dependencies"].values() for line in extra)]
    package = {requirement.name: requirement for requirement in map(Requirement, listed) if requirement.name != "bpe-core"}
    for name, requirement in package.items():
        assert name in app and app[name].specifier == requirement.specifier, requirement
        assert app[name].extras == requirement.extras, requirement
    tests_and_benchmarks = (ROOT / "requirements.txt").read_text(encoding="utf-8").split("# Tests and benchmarks")[1]
    assert set(requirements_in("requirements.txt")) - set(package) == {
        Requirement(line.split("#")[0]).name for line in tests_and_benchmarks.splitlines() if line.split("#")[0].strip()}
    assert metadata["optional-dependencies"]["app"][0] == "bpe-core[zoo,algorithms]"


def test_the_projects_editable_install_adds_its_plugin_beside_tiktokens_own():
    """requirements.txt's `-e .` installs the project in this Python. Its
    plugin's folder is mapped to `tiktoken_ext`: it must join tiktoken's
    namespace package, not hide OpenAI's plugin in it (tiktoken would then
    know no encoding of OpenAI's). Run from a folder outside the checkout."""
    code = ("import importlib.util, json, tiktoken\n"
            "print(json.dumps([importlib.util.find_spec('bpe_core').origin, tiktoken.list_encoding_names()]))")
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", env=environment,
                            timeout=120, check=False)
    installed = result.returncode == 0 and Path(json.loads(result.stdout)[0]).resolve() == ROOT / "bpe_core" / "__init__.py"
    if not installed:
        if os.environ.get("REQUIRE_PACKAGE_TESTS"):
            pytest.fail(f"this checkout is not installed in this Python (pip install -r requirements.txt): {result.stderr}")
        pytest.skip("this checkout is not installed in this Python (pip install -r requirements.txt installs it)")
    names = json.loads(result.stdout)[1]
    assert sorted(names) == sorted([*tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS, *ZOO_NAMES])
