"""Entries found by their modules, never listed: predictions, design tasks, bugs, code tasks, problem kinds.

Every kind of entry the course registers is found one way, :func:`discover`: a package's modules are imported
(``pkgutil``) and each one that defines the package's attribute (``TASK``, ``KIND``, ``PREDICTIONS``, ...) gives its
entries. A new entry is one new module (or an edited one) and nothing else.


A package such as :mod:`helpers.exercises.predictions` holds ``n01.py``, ``n02.py``, ... (the notebook's number),
each with one list of entries (``PREDICTIONS``, ``TASKS``, ``BUGS``). :func:`collect` imports every such module it
finds (``pkgutil``) and gathers the lists into one dict by name. Adding a notebook's entries is therefore one new
or edited file and nothing else: no registry to extend, no file that two authors both change.

:class:`Entries` is one package's entries, to list them all or look one up: what the package's own ``predictions()``
and ``prediction(name)`` (``bugs()`` and ``bug(name)``, ...) return.

:func:`find_entry` looks one entry up by name and imports only its notebook's module (the name starts with the
notebook's number): a notebook that shows ``predict("01-pasta-weight")`` does not compute the truths of every other
notebook's predictions (notebooks 05 and 08 compute theirs from their demos, 0.3 s together).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache

__all__ = ["MODULE_NAME", "NAME", "NOTEBOOK", "Entries", "discover", "collect", "check_names", "find", "find_entry"]

MODULE_NAME = re.compile(r"n\d\d")            # n01 ... n13: the module of one notebook
NAME = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")  # "01-pasta-weight": the notebook's number, then words
NOTEBOOK = re.compile(r"\d\d_[a-z0-9_]+")     # "01_intuition", as in course.toml


def check_names(name, notebook, what: str) -> None:
    """Raise ValueError unless ``name`` reads "NN-words" and ``notebook`` "NN_words" with the same NN."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"a {what}'s name reads like '01-pasta-weight' (the notebook's number, then lower-case "
                         f"words joined by '-'); got {name!r}")
    if not isinstance(notebook, str) or not NOTEBOOK.fullmatch(notebook):
        raise ValueError(f"{what} {name!r}: notebook must be a notebook's name like '01_intuition'; got {notebook!r}")
    if name[:2] != notebook[:2]:
        raise ValueError(f"{what} {name!r} belongs to notebook {notebook!r}: its name starts with {notebook[:2]}-")


def _module_names(package: str) -> list[str]:
    """The names of the modules (not subpackages) of ``package`` (dotted), sorted."""
    parent = importlib.import_module(package)
    return sorted(m.name for m in pkgutil.iter_modules(parent.__path__) if not m.ispkg)


def discover(package: str, attribute: str) -> list:
    """The ``attribute`` (``"TASK"``) of every module of ``package`` (``"helpers.exercises.code_tasks"``) that
    defines it, in the order of the modules' names; the package's other modules (shared code) define no such name."""
    modules = (importlib.import_module(f"{package}.{name}") for name in _module_names(package))
    return [getattr(module, attribute) for module in modules if hasattr(module, attribute)]


def collect(package: str, attribute: str) -> dict:
    """Every entry of ``attribute`` in the per-notebook modules of ``package``, by its ``name``, in notebook order.

    Parameters
    ----------
    package : str
        The package's dotted name (``"helpers.exercises.predictions"``).
    attribute : str
        The list each module holds (``"PREDICTIONS"``).

    Raises
    ------
    ValueError
        If a module lacks the list, an entry sits in another notebook's module (``n01`` holds notebook 01's entries
        only), or two entries share a name.
    """
    found: dict = {}
    for module_name in (name for name in _module_names(package) if MODULE_NAME.fullmatch(name)):
        for name, entry in _module_entries(package, attribute, module_name).items():
            if name in found:
                raise ValueError(f"two entries of {package} are named {name!r}")
            found[name] = entry
    return found


@cache
def _module_entries(package: str, attribute: str, module_name: str) -> dict:
    """The entries of one per-notebook module (``module_name`` such as ``"n08"``), by name, checked as
    :func:`collect` says."""
    module = importlib.import_module(f"{package}.{module_name}")
    entries = getattr(module, attribute, None)
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"{package}.{module_name} must define {attribute}, a list")
    found: dict = {}
    for entry in entries:
        if entry.notebook[:2] != module_name[1:]:
            raise ValueError(f"{entry.name!r} is for notebook {entry.notebook}: it belongs in "
                             f"{package}.n{entry.notebook[:2]}, not in {module_name}")
        if entry.name in found:
            raise ValueError(f"two entries of {package} are named {entry.name!r}")
        found[entry.name] = entry
    return found


def find_entry(package: str, attribute: str, name, what: str, plural: str):
    """The entry called ``name`` in ``package``, importing only the module of its notebook (``"08-..."``: ``n08``).

    Raises
    ------
    ValueError
        If there is none, naming the known ones (then every module is read), as :func:`find`.
    """
    if isinstance(name, str) and NAME.fullmatch(name):
        parent = importlib.import_module(package)
        module_name = f"n{name[:2]}"
        if any(m.name == module_name for m in pkgutil.iter_modules(parent.__path__)):
            entry = _module_entries(package, attribute, module_name).get(name)
            if entry is not None:
                return entry
    return find(collect(package, attribute), name, what, plural)


def find(entries: dict, name, what: str, plural: str):
    """The entry called ``name`` among ``entries`` (what :func:`collect` gathered).

    Raises
    ------
    ValueError
        If there is none, naming the known ones: "no {what} is called ...; the {plural} are ...".
    """
    if not isinstance(name, str) or name not in entries:
        raise ValueError(f"no {what} is called {name!r}; the {plural} are {', '.join(entries) or 'none yet'}")
    return entries[name]


class Entries:
    """The entries of one package's per-notebook modules: :meth:`all` of them, or :meth:`one` by its name.

    Parameters
    ----------
    package : str
        The package's dotted name (``"helpers.exercises.bugs"``).
    attribute : str
        The list each of its modules holds (``"BUGS"``).
    what, plural : str
        An entry in words, one and many (``"bug"``, ``"bugs"``), for the message naming the known ones.
    """

    def __init__(self, package: str, attribute: str, what: str, plural: str) -> None:
        self.package, self.attribute, self.what, self.plural = package, attribute, what, plural
        self._found: dict | None = None

    def all(self) -> dict:
        """Every entry by name, in notebook order (a new dict: changing it changes nothing); read once."""
        if self._found is None:
            self._found = collect(self.package, self.attribute)
        return dict(self._found)

    def one(self, name):
        """The entry called ``name``, importing only its notebook's module (:func:`find_entry`)."""
        return find_entry(self.package, self.attribute, name, self.what, self.plural)
