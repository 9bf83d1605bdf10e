"""nbgrader's configuration for grading the student edition (``make student``).

Copy this file into an nbgrader course directory as ``nbgrader_config.py``, put the student edition's notebooks in
``source/<assignment>/`` and run ``nbgrader generate_assignment <assignment>``: that records the graded cells in the
gradebook and writes ``release/<assignment>/``, the notebooks to hand out. Submissions then go into
``submitted/<student>/<assignment>/`` and ``nbgrader autograde <assignment>`` grades them (README: "A student
edition, graded with nbgrader").

The student edition is already what learners get, so generating the assignment changes nothing a learner sees: its
answer cells keep their skeletons (nbgrader's default would replace each with ``raise NotImplementedError()``, since
they hold no "BEGIN SOLUTION" region) and its outputs stay (figures, tables, the widgets' pictures). Everything else
is nbgrader's default pipeline: cells locked, checksums computed, cells saved in the gradebook.
"""

from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    SaveCells,
)

c = get_config()  # noqa: F821 - nbgrader defines get_config when it reads this file

# nbgrader's GenerateAssignment.preprocessors without ClearSolutions and ClearOutput.
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    CheckCellMetadata,
]
