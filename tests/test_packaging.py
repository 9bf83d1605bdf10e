"""A wheel of the course's helpers holds every module and data file, and works without the source tree.

A Binder or JupyterHub image, or ``pip install .``, gets the helpers from the wheel, not from an editable
install pointing at this checkout. The wheel is built from a copy of the sources (so the checkout gets no
``build/`` folder), installed with ``pip install --target`` into a temporary folder, and every module found
in the source tree is imported from there in a fresh interpreter with this checkout and the editable install
out of the way.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "helpers"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")


def source_files() -> list[str]:
    """Every file of the helpers package, as paths relative to the repository ('helpers/demos/lookup.py')."""
    return sorted(p.relative_to(ROOT).as_posix() for p in SOURCE.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def module_names() -> list[str]:
    """The dotted name of every module in the source tree: 'helpers', 'helpers.demos', 'helpers.demos.lookup'."""
    names = []
    for path in source_files():
        if path.endswith(".py"):
            parts = path[: -len(".py")].split("/")
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def run(cmd, cwd, env=None) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    command = " ".join(map(str, cmd))
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result


def clean_env() -> dict:
    """The environment without PYTHONPATH (which would put this checkout first) and without pip's user config."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def can_build_wheels_offline() -> bool:
    """setuptools builds wheels by itself from 70.1 on; before that it needs the ``wheel`` package."""
    try:
        major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built, without build isolation, from a copy of pyproject.toml and helpers/."""
    assert can_build_wheels_offline(), (
        "this environment's setuptools cannot build a wheel without the network: "
        "`make setup` installs the one requirements.txt pins")
    src = tmp_path_factory.mktemp("src")
    shutil.copy2(ROOT / "pyproject.toml", src / "pyproject.toml")
    for extra in ("README.md", "LICENSE"):
        if (ROOT / extra).exists():
            shutil.copy2(ROOT / extra, src / extra)
    shutil.copytree(SOURCE, src / "helpers", ignore=SKIP)
    out = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", str(out), str(src)], cwd=src, env=clean_env())
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The folder the wheel was installed into with ``pip install --target`` (not editable)."""
    target = tmp_path_factory.mktemp("site")
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        cwd=target, env=clean_env())
    return target


# Runs in a fresh interpreter: the install folder first on sys.path, the editable install's finder removed,
# then every module imported; prints {module: file it came from} or the first error.
IMPORT_ALL = """
import importlib, json, sys, traceback
target, names = sys.argv[1], json.loads(sys.argv[2])
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")
                    and "__editable__" not in getattr(f, "__name__", "")]
sys.path.insert(0, target)
files, errors = {}, {}
for name in names:
    try:
        files[name] = importlib.import_module(name).__file__
    except Exception:
        errors[name] = traceback.format_exc(limit=3)
print(json.dumps({"files": files, "errors": errors}))
"""


def test_wheel_holds_every_file_of_the_helpers_package_and_nothing_else(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = [p for p in source_files() if p not in names]
    assert not missing, f"files of helpers/ missing from the wheel: {missing}"
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"helpers"}, top


def test_every_module_imports_from_a_non_editable_install(installed, tmp_path):
    names = module_names()
    assert {"helpers", "helpers.demos", "helpers.parsing", "helpers.widgets"} <= set(names)
    result = run([sys.executable, "-c", IMPORT_ALL, str(installed), json.dumps(names)], cwd=tmp_path, env=clean_env())
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["errors"], "\n".join(f"{k}:\n{v}" for k, v in report["errors"].items())
    outside = {name: f for name, f in report["files"].items() if installed not in Path(f).resolve().parents}
    assert not outside, f"imported from outside the install (the checkout or an editable install): {outside}"
    assert sorted(report["files"]) == names
