"""The package as pip builds it from pyproject.toml: every floor of bpe_core,
the sample corpora and the tiktoken plugin mapped in from where the
repository keeps them, and requirements that agree with requirements.txt,
which the app installs. (tests/test_installed_package.py tries the wheel.)"""

import tomllib

from packaging.requirements import Requirement

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
