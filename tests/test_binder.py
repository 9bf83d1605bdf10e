"""The Binder / JupyterHub image: what repo2docker builds from ``binder/`` runs the course.

repo2docker (behind mybinder.org and most university hubs) reads ``binder/``: it installs Python at the version
of ``binder/runtime.txt``, then ``pip install -r binder/requirements.txt``, copies the repository into the image
and runs ``binder/postBuild`` from the repository root. The slow test here does the same without Docker: a fresh
virtual environment (not the course's ``.venv``, no editable install, no ``PYTHONPATH``), the same pip command,
then ``postBuild`` run from a copy of the repository's files (so nothing in this checkout's ``.venv/`` or
``build/`` can help). In that environment it imports every ``helpers`` module, loads the pretrained model and
runs notebooks 02 (widgets), 07 (the patterns) and 12 (the model) under strict nbval.

The build installs from PyPI and takes minutes, so it runs only with ``RUN_SLOW=1``; CI sets it. The fast
tests below run always.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
# A notebook with the explorer's widgets, the patterns notebook, and the one that uses the pretrained model.
NBVAL_NOTEBOOKS = ["02_projections.ipynb", "07_patterns.ipynb", "12_real_model.ipynb"]
# Slow tests build an environment from PyPI (about a minute): tests/conftest.py leaves them out unless RUN_SLOW=1,
# which `make test-binder` sets (CI runs it after `make test`).
slow = pytest.mark.slow


_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")


def pins(path: Path) -> dict[str, str]:
    """The ``name==version`` lines of a requirements file, by normalized name ('ipywidgets' -> '8.1.9').

    Raises
    ------
    AssertionError
        If a requirement line is not pinned to one exact version.
    """
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.match(line)
        assert match, f"{path.relative_to(ROOT)}: {line!r} is not pinned to one version (name==version)"
        found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def python_version_of_runtime_txt() -> str:
    """The 'X.Y' that ``binder/runtime.txt`` asks repo2docker for ('python-3.11' -> '3.11')."""
    text = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    assert match, f"binder/runtime.txt says {text!r}; repo2docker expects 'python-X.Y'"
    return match[1]


# -- fast checks: the files repo2docker reads


def declared(extras=("lab", "dev")) -> list:
    """The requirements pyproject.toml declares: the package's dependencies and those of ``extras``."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    texts = project["dependencies"] + [r for extra in extras for r in project["optional-dependencies"][extra]]
    return [Requirement(text) for text in texts]


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("lock, extras", [("requirements.txt", ("lab", "dev")), ("binder/requirements.txt", ("lab",))])
def test_the_lock_pins_every_declared_dependency_at_a_version_it_allows(lock, extras):
    pinned = pins(ROOT / lock)
    for requirement in declared(extras):
        name = normalized(requirement.name)
        assert name in pinned, f"{lock} does not pin {requirement.name}, which pyproject.toml declares: make lock"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{lock} pins {requirement.name}=={pinned[name]}, outside pyproject.toml's {requirement}: make lock")


def test_the_binder_image_gets_the_locked_versions_and_no_test_tools():
    binder, course = pins(BINDER / "requirements.txt"), pins(ROOT / "requirements.txt")
    differ = {name: (v, course.get(name)) for name, v in binder.items() if course.get(name) != v}
    assert not differ, f"binder/requirements.txt is not resolved within requirements.txt (make lock): {differ}"
    # What a learner's image does without (README, "Teach it with Binder or JupyterHub").
    tools = {"pytest", "nbval", "hypothesis", "playwright", "voila", "ruff", "import-linter", "uv"}
    assert not tools & set(binder), f"test and authoring tools in the image: {sorted(tools & set(binder))}"


def test_runtime_python_is_one_the_course_package_accepts():
    wanted = tuple(int(x) for x in python_version_of_runtime_txt().split("."))
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'requires-python\s*=\s*">=(\d+)\.(\d+)"', text)
    assert minimum, "pyproject.toml has no requires-python = \">=X.Y\""
    assert wanted >= (int(minimum[1]), int(minimum[2]))


def test_postbuild_is_committed_executable_with_a_bash_shebang():
    listed = subprocess.run(["git", "ls-files", "-s", "binder/postBuild"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout.strip():
        mode = listed.stdout.split()[0]
        assert mode == "100755", f"binder/postBuild is stored with mode {mode}: `git update-index --chmod=+x`"
    else:  # not committed yet (or no git): the file itself must be executable
        assert os.access(BINDER / "postBuild", os.X_OK), "binder/postBuild is not executable"
    assert (BINDER / "postBuild").read_text(encoding="utf-8").startswith(("#!/usr/bin/env bash\n", "#!/bin/bash\n"))


# -- the slow build


def run(cmd, cwd, env, timeout=1200) -> subprocess.CompletedProcess:
    """Run ``cmd``; fail with the tail of its output if it exits non-zero."""
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited {result.returncode}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def interpreter_for(version: str) -> str:
    """A Python executable of ``version`` ('3.11'): this one if it matches, else ``pythonX.Y`` on PATH."""
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    if found is None:
        pytest.fail(f"binder/runtime.txt asks for Python {version}, which is not on this machine")
    return found


def repository_files() -> list[str]:
    """The files a clone would hold: tracked ones and new ones not ignored (never .venv/, build/, caches)."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                 env=dict(os.environ))
    return sorted(p for p in listed.stdout.split("\0") if p and (ROOT / p).is_file())


def copy_repository(dest: Path) -> set[str]:
    """Copy the repository's files (with their modes) into ``dest``; returns their relative paths."""
    files = repository_files()
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return set(files)


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


class BinderEnv:
    """A built environment: its ``python``, the repository ``copy`` it was built from, the ``env`` to run it in."""

    def __init__(self, python: Path, copy: Path, env: dict, seconds: dict):
        self.python, self.copy, self.env, self.seconds = python, copy, env, seconds

    def run(self, *args, cwd=None, timeout=1200) -> subprocess.CompletedProcess:
        return run([self.python, *args], cwd=cwd or self.copy / "notebooks", env=self.env, timeout=timeout)


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory) -> BinderEnv:
    """Build the environment repo2docker would build from ``binder/``, step by step, timing each step."""
    import time

    base = tmp_path_factory.mktemp("binder")
    venv, copy, home = base / "venv", base / "repo", base / "home"
    home.mkdir()
    copied = copy_repository(copy)

    # Only this environment's Python on PATH, nothing pointing at the checkout, and Jupyter, IPython and
    # matplotlib settings in a folder of their own (a user's matplotlibrc or kernels would change the outputs).
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONUSERBASE")}
    env.update({
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(home / "jupyter-data"),
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "matplotlib"),
    })

    seconds = {}
    t0 = time.perf_counter()
    run([interpreter_for(python_version_of_runtime_txt()), "-m", "venv", venv], cwd=base, env=env)
    python = venv / "bin" / "python"
    seconds["venv"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    run([python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"], cwd=copy, env=env)
    seconds["requirements"] = time.perf_counter() - t0

    # repo2docker runs `./binder/postBuild` from the repository root after making it executable.
    t0 = time.perf_counter()
    run(["./binder/postBuild"], cwd=copy, env=env)
    seconds["postBuild"] = time.perf_counter() - t0
    left = files_under(copy) - copied
    assert not left, f"postBuild left files in the repository folder learners see: {sorted(left)[:10]}"

    # The test tools, after the build, at the course's pins (the image itself does without them).
    course = pins(ROOT / "requirements.txt")
    t0 = time.perf_counter()
    run([python, "-m", "pip", "install", "--quiet", f"pytest=={course['pytest']}", f"nbval=={course['nbval']}"],
        cwd=copy, env=env)
    seconds["test tools"] = time.perf_counter() - t0
    print("binder build seconds:", {k: round(v, 1) for k, v in seconds.items()})
    return BinderEnv(python, copy, env, seconds)


# Runs inside the built environment from the notebooks folder, as a notebook's kernel would: imports every
# module and reports where each came from, and whether an editable install of the course is present.
IMPORT_ALL = """
import importlib, importlib.metadata, json, sys, sysconfig, traceback
names = json.loads(sys.argv[1])
files, errors = {}, {}
for name in names:
    try:
        files[name] = importlib.import_module(name).__file__
    except Exception:
        errors[name] = traceback.format_exc(limit=3)
dist = importlib.metadata.distribution("attention-course-helpers")
direct_url = dist.read_text("direct_url.json") or "{}"
print(json.dumps({"files": files, "errors": errors, "purelib": sysconfig.get_paths()["purelib"],
                  "editable": json.loads(direct_url).get("dir_info", {}).get("editable", False)}))
"""


def module_names(helpers_dir: Path) -> list[str]:
    """Every module of the helpers package in ``helpers_dir``: 'helpers', 'helpers.demos', 'helpers.demos.lookup'."""
    names = []
    for path in sorted(helpers_dir.rglob("*.py")):
        parts = path.relative_to(helpers_dir.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


@slow
def test_every_helpers_module_imports_from_the_installed_package_not_the_repository(binder_env):
    names = module_names(binder_env.copy / "helpers")
    assert {"helpers", "helpers.demos", "helpers.pretrained", "helpers.widgets"} <= set(names)
    result = binder_env.run("-c", IMPORT_ALL, json.dumps(names))
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["errors"], "\n".join(f"{k}:\n{v}" for k, v in report["errors"].items())
    assert sorted(report["files"]) == names
    assert not report["editable"], "the course package is installed editable"
    site = Path(report["purelib"]).resolve()
    outside = {n: f for n, f in report["files"].items() if site not in Path(f).resolve().parents}
    assert not outside, f"imported from outside the environment's site-packages ({site}): {outside}"
    assert sysconfig.get_paths()["purelib"] != report["purelib"], "the build used this test run's environment"


@slow
def test_the_pretrained_model_loads_and_runs(binder_env):
    code = ("from helpers.pretrained import MiniLM\n"
            "out = MiniLM.load()('The bank of the river.')\n"
            "print(out.tokens, out.attentions.shape)\n")
    result = binder_env.run("-c", code)
    assert result.stdout.strip().splitlines()[-1] == (
        "['[CLS]', 'the', 'bank', 'of', 'the', 'river', '.', '[SEP]'] (6, 12, 8, 8)")


@slow
def test_a_widget_notebook_and_the_model_notebook_pass_strict_nbval(binder_env):
    # --nbval-current-env: the kernel is this environment's Python, whatever kernels the machine has registered.
    result = binder_env.run(
        "-m", "pytest", "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "../tests/nbval_sanitize.cfg",
        "-v", *NBVAL_NOTEBOOKS)
    for notebook in NBVAL_NOTEBOOKS:
        cells = re.findall(rf"^(?:\S*/)?{re.escape(notebook)}::Cell \d+ PASSED", result.stdout, re.M)
        assert cells, f"no cell of {notebook} passed:\n{result.stdout[-3000:]}"
    assert re.search(r"\b\d+ passed\b", result.stdout) and " failed" not in result.stdout


# Runs in the empty environment after `pip install .`: every file the installed distribution holds.
INSTALLED_FILES = """
import importlib.metadata, json
print(json.dumps(sorted(str(f) for f in importlib.metadata.files("attention-course-helpers"))))
"""


@slow
def test_pip_install_of_the_package_alone_brings_everything_its_modules_import(tmp_path):
    """``pip install .`` into an empty environment (no requirements file): the package's declared dependencies are
    enough for every module to import, the explorer's among them, and it installs every file of helpers/ (data
    files too) and nothing outside it."""
    venv, copy = tmp_path / "venv", tmp_path / "repo"
    copied = copy_repository(copy)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    run([sys.executable, "-m", "venv", venv], cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", "."], cwd=copy, env=env)
    names = module_names(copy / "helpers")
    result = run([python, "-c", IMPORT_ALL, json.dumps(names)], cwd=tmp_path, env=env)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["errors"], "\n".join(f"{k}:\n{v}" for k, v in report["errors"].items())
    assert "helpers.widgets.explorer" in report["files"] and not report["editable"]
    site = Path(report["purelib"]).resolve()
    outside = {n: f for n, f in report["files"].items() if site not in Path(f).resolve().parents}
    assert not outside, f"imported from outside the environment's site-packages ({site}): {outside}"

    installed = json.loads(run([python, "-c", INSTALLED_FILES], cwd=tmp_path, env=env).stdout)
    package = {f for f in installed if not f.split("/")[0].endswith(".dist-info") and not f.endswith(".pyc")}
    sources = {f for f in copied if f.startswith("helpers/")}
    assert sources - package == set(), f"files of helpers/ that pip install . leaves out: {sorted(sources - package)}"
    assert {f.split("/")[0] for f in package} == {"helpers"}, f"installed outside helpers/: {sorted(package)[:10]}"
