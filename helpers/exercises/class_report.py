"""The class report: what a class got right, from the learners' progress files, for the instructor.

::

    python -m helpers.exercises.class_report PATH... --out DIR        # make class-report PROGRESS=PATH [OUT=DIR]

Each PATH is a progress file (``progress-ana.json``, written by 00's Hand in) or a folder searched for ``*.json``
files at any depth, such as nbgrader's ``submitted/`` (``submitted/<learner>/<assignment>/progress-ana.json``). A
learner is the ``<learner>`` folder under ``submitted/``, else the file's name without ``.json`` and without its
``progress-`` prefix. A JSON file that is not a course progress file is skipped with a warning on stderr; several
files of one learner (one per assignment) are read as one, each record taken from the file that checked it most
often (progress only grows).

Three files are written in DIR:

``class_report.csv``
    One row per learner and record: ``learner,kind,name,objective,correct,tries,answer``. ``objective`` is the
    concept inventory item's (1-5) for the kinds ``inventory-pre`` and ``inventory-post``, empty for the rest;
    ``correct`` is ``true``, ``false`` or empty (no verdict recorded).
``class_gain.csv``
    One row per learning objective: ``objective,pre,post,gain,learners``. Only learners who took both tests (a score
    for the objective in each) count: ``pre`` and ``post`` are the class's average percentages right, ``gain`` the
    normalized gain g = (post − pre) / (100 − pre) of those averages (Hake 1998; empty when pre is 100 or no
    learner took both).
``class_report.html``
    One page that reads offline (no script, no link outside it; inline CSS): bars per objective before and after,
    per prediction the share right at the first try and the most common wrong answer with the misconception it
    suggests, per task how many got it right, and per learner their inventory scores.

Without a readable progress file the command writes nothing and exits with status 1 and one line on stderr; bad
arguments give one line and status 2.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from helpers.core.numbers import number_text
from helpers.exercises.course_work import describe, notebook_of
from helpers.exercises.hand_in import FILE_PREFIX
from helpers.exercises.inventory import OBJECTIVES, TEST_KINDS, items, normalized_gain, objective_scores
from helpers.exercises.predictions import predictions
from helpers.exercises.progress import KINDS, Progress, Result, parse_progress

__all__ = ["REPORT_CSV", "GAIN_CSV", "REPORT_HTML", "REPORT_COLUMNS", "GAIN_COLUMNS", "SUBMITTED",
           "Gain", "PredictionSummary", "learner_of", "read_class", "report_rows", "class_gain", "prediction_summaries",
           "report_html", "write_report", "main"]

REPORT_CSV, GAIN_CSV, REPORT_HTML = "class_report.csv", "class_gain.csv", "class_report.html"
REPORT_COLUMNS = ("learner", "kind", "name", "objective", "correct", "tries", "answer")
GAIN_COLUMNS = ("objective", "pre", "post", "gain", "learners")
# nbgrader's folder of handed-in work: submitted/<learner>/<assignment>/...
SUBMITTED = "submitted"
_TASK_KINDS = ("design", "bug", "your-turn", "question")
_PROG = "python -m helpers.exercises.class_report"


# --------------------------------------------------------------------------- reading the class


def learner_of(path) -> str:
    """Whose progress file ``path`` is: the folder under ``submitted/`` if the path has one, else the file's name
    without ``.json`` and its ``progress-`` prefix (``progress-ana.json`` -> ``ana``)."""
    parts = Path(path).parts
    folders = parts[:-1]
    for k in range(len(folders) - 2, -1, -1):
        if folders[k] == SUBMITTED:
            return folders[k + 1]
    stem = Path(path).stem
    return stem.removeprefix(FILE_PREFIX) or stem


def _json_files(paths: Iterable, warn: Callable[[str], None]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.json") if p.is_file())
        elif path.is_file():
            found.append(path)
        else:
            warn(f"skipped {path}: no such file or folder")
    return list(dict.fromkeys(found))


def _merged(first: Progress, second: Progress) -> Progress:
    """One learner's two files as one: each record from the file that checked it more often (the later on a tie)."""
    records = {kind: dict(first.records[kind]) for kind in KINDS}
    for kind in KINDS:
        for name, result in second.records[kind].items():
            if name not in records[kind] or result.tries >= records[kind][name].tries:
                records[kind][name] = result
    return Progress(records)


def read_class(paths: Iterable, warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
               ) -> dict[str, Progress]:
    """Every learner's progress in the files and folders ``paths``, by learner, sorted by name.

    Files that are not readable course progress files are skipped, each with a line to ``warn``.
    """
    learners: dict[str, Progress] = {}
    for path in _json_files(paths, warn):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            warn(f"skipped {path}: not readable JSON ({getattr(err, 'strerror', None) or err})")
            continue
        state = parse_progress(data)
        if state is None:
            warn(f"skipped {path}: not a course progress file")
            continue
        learner = learner_of(path)
        learners[learner] = _merged(learners[learner], state) if learner in learners else state
    return dict(sorted(learners.items()))


# --------------------------------------------------------------------------- the numbers


def _objective(kind: str, name: str) -> int | None:
    item = items().get(name) if kind in TEST_KINDS else None
    return item.objective if item is not None else None


def _yes_no(correct: bool | None) -> str:
    return "" if correct is None else ("true" if correct else "false")


def report_rows(learners: dict[str, Progress]) -> list[tuple]:
    """The rows of ``class_report.csv`` (:data:`REPORT_COLUMNS`), learner by learner, kind by kind, name by name."""
    rows = []
    for learner, state in learners.items():
        for kind in KINDS:
            for name, r in state.results(kind).items():
                objective = _objective(kind, name)
                rows.append((learner, kind, name, "" if objective is None else objective, _yes_no(r.correct),
                             r.tries, r.answer or ""))
    return rows


@dataclass(frozen=True)
class Gain:
    """One objective's row of ``class_gain.csv``: the class's average percentages right before and after (None if
    no learner took both tests), the normalized gain of those averages (None where undefined) and how many learners
    count."""

    objective: int
    pre: float | None
    post: float | None
    gain: float | None
    learners: int


def class_gain(learners: dict[str, Progress]) -> list[Gain]:
    """Per objective, over the learners with a score for it in both tests: the averages and their normalized gain."""
    scores = [(objective_scores(state, "inventory-pre"), objective_scores(state, "inventory-post"))
              for state in learners.values()]
    gains = []
    for objective in sorted({item.objective for item in items().values()}):
        both = [(pre[objective], post[objective]) for pre, post in scores
                if pre.get(objective) is not None and post.get(objective) is not None]
        if not both:
            gains.append(Gain(objective, None, None, None, 0))
            continue
        pre = sum(p for p, _ in both) / len(both)
        post = sum(q for _, q in both) / len(both)
        gains.append(Gain(objective, pre, post, normalized_gain(pre, post), len(both)))
    return gains


@dataclass(frozen=True)
class PredictionSummary:
    """How a class did on one prediction: how many committed it, how many were right at the first try, the most
    common wrong answer (as the prediction reads it), how many gave it, and what it suggests ("You probably
    thought …", '' if the prediction's table is silent)."""

    name: str
    question: str
    answered: int
    right: int
    common_wrong: str
    common_wrong_count: int
    misconception: str

    @property
    def share_right(self) -> float | None:
        """The fraction right at the first try, of those with a verdict; None if nobody committed it."""
        return self.right / self.answered if self.answered else None


def _canonical(prediction, answer: str):
    """``answer`` as the prediction reads it (so "0.5" and ".5" are one answer); the text itself if it cannot."""
    try:
        return prediction.read(answer)
    except (ValueError, TypeError):
        return answer


def prediction_summaries(learners: dict[str, Progress]) -> list[PredictionSummary]:
    """One summary per prediction of the course, in course order."""
    summaries = []
    for name, prediction in predictions().items():
        results = [r for state in learners.values() if (r := state.result("prediction", name)) is not None
                   and r.correct is not None]
        wrong = Counter(_canonical(prediction, r.answer) for r in results if not r.correct and r.answer)
        common, count, thought = "", 0, ""
        if wrong:
            value, count = wrong.most_common(1)[0]
            common = _answer_text(value)
            try:
                thought = prediction.thought_for(value)
            except (ValueError, TypeError):
                thought = ""
        summaries.append(PredictionSummary(name, describe("prediction", name).removeprefix("predict: "),
                                           len(results), sum(r.correct for r in results), common, count, thought))
    return summaries


def _answer_text(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value)


def _task_rows(learners: dict[str, Progress]) -> list[tuple[str, str, int, int, int]]:
    """Per task any learner checked: (notebook, what, tried, right, right at the first try), in course order."""
    rows = []
    for kind in _TASK_KINDS:
        names = sorted({name for state in learners.values() for name in state.records[kind]},
                       key=lambda n: (notebook_of(kind, n) or "~", n))
        for name in names:
            results: list[Result] = [r for state in learners.values() if (r := state.result(kind, name)) is not None]
            rows.append((notebook_of(kind, name) or "", describe(kind, name, named=True),
                         len(results), sum(r.solved_on is not None for r in results),
                         sum(r.solved_on == 1 for r in results)))
    return rows


# --------------------------------------------------------------------------- the page

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:24px auto;max-width:62em;padding:0 16px;color:#1a1a1a;background:#fff}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid #ccc;text-align:left;vertical-align:top}td.n{text-align:right}
.bar{display:inline-block;vertical-align:middle;height:.9em;background:#eee;width:8em;margin-right:6px}
td.b{white-space:nowrap}
.bar span{display:block;height:100%}.pre span{background:#8c8c8c}.post span{background:#1f6fb4}
.right span{background:#1b7f3b}.muted{color:#595959}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#e6e6e6}th,td{border-color:#555}
.bar{background:#3a3a3a}.muted{color:#aaa}.pre span{background:#a8a8a8}.post span{background:#5aa5e6}
.right span{background:#4cbb6c}}
"""


def _esc(text) -> str:
    return html.escape(str(text))


def _bar(percent: float | None, css_class: str) -> str:
    """A table cell with a bar of ``percent`` (0 to 100; None: an empty bar and "—") and the number."""
    width = 0.0 if percent is None else max(0.0, min(100.0, percent))
    label = "—" if percent is None else number_text(percent, 0, unit=" %")
    return (f'<td class="b"><span class="bar {css_class}" role="img" aria-label="{label}"><span '
            f'style="width:{width:.1f}%"></span></span>{label}</td>')


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def report_html(learners: dict[str, Progress]) -> str:
    """``class_report.html``: the whole report as one page that reads offline."""
    gains = class_gain(learners)
    parts = [f"<h1>Class report</h1><p>{len(learners)} learner{'' if len(learners) == 1 else 's'} (each one's "
             "inventory scores are at the end).</p>",
             "<h2>Concept inventory, per objective</h2>",
             '<p class="muted">Grey: before the course (pre-test); blue: after notebook 09 (post-test). Learners who '
             "took both tests only. g = (post − pre) / (100 − pre), of the class's averages (Hake 1998).</p>",
             "<table><tr><th>objective</th><th>before</th><th>after</th><th>g</th><th>learners</th></tr>"]
    for g in gains:
        parts.append(f"<tr><td>{g.objective}. {_esc(OBJECTIVES.get(g.objective, ''))}</td>"
                     f"{_bar(g.pre, 'pre')}{_bar(g.post, 'post')}"
                     f'<td class="n">{"" if g.gain is None else number_text(g.gain, 2, trim=False)}</td>'
                     f'<td class="n">{g.learners}</td></tr>')
    parts.append("</table>")
    parts += ["<h2>Predictions</h2>",
              '<p class="muted">Right at the first try, of the learners who committed a prediction; the most common '
              "wrong first answer and what it suggests.</p>",
              "<table><tr><th>prediction</th><th>right</th><th>committed</th><th>most common wrong answer</th>"
              "<th>what it suggests</th></tr>"]
    for s in prediction_summaries(learners):
        share = None if s.share_right is None else 100 * s.share_right
        wrong = f"{_esc(s.common_wrong)} ({s.common_wrong_count})" if s.common_wrong_count else ""
        parts.append(f"<tr><td><b>{_esc(s.name[:2])}</b> {_esc(s.question)}</td>{_bar(share, 'right')}"
                     f'<td class="n">{s.answered}</td><td>{wrong}</td><td>{_esc(s.misconception)}</td></tr>')
    parts.append("</table>")
    parts += ["<h2>Tasks</h2>",
              "<table><tr><th>notebook</th><th>task</th><th>tried</th><th>right</th><th>right at once</th></tr>"]
    for notebook, what, tried, right, at_once in _task_rows(learners):
        parts.append(f"<tr><td>{_esc(notebook[:2])}</td><td>{_esc(what)}</td><td class=\"n\">{tried}</td>"
                     f'<td class="n">{right}</td><td class="n">{at_once}</td></tr>')
    parts.append("</table>")
    parts += ["<h2>Learners</h2>", "<table><tr><th>learner</th><th>records</th><th>inventory before</th>"
              "<th>inventory after</th></tr>"]
    for learner, state in learners.items():
        count = sum(len(records) for records in state.records.values())
        before, after = (_overall(state, kind) for kind in TEST_KINDS)
        parts.append(f'<tr><td>{_esc(learner)}</td><td class="n">{count}</td>{_bar(before, "pre")}'
                     f"{_bar(after, 'post')}</tr>")
    parts.append("</table>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Class report</title>'
            f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>\n")


def _overall(state: Progress, kind: str) -> float | None:
    """A learner's percentage right over every inventory item answered in the test ``kind``; None if none was."""
    verdicts = [r.correct for name, r in state.results(kind).items() if name in items() and r.correct is not None]
    return 100 * sum(verdicts) / len(verdicts) if verdicts else None


# --------------------------------------------------------------------------- writing it


def write_report(learners: dict[str, Progress], out) -> dict[str, Path]:
    """Write the three files of the report in the folder ``out`` (made if missing); their paths by file name.

    Raises
    ------
    OSError
        If the folder or a file cannot be written.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {name: out / name for name in (REPORT_CSV, GAIN_CSV, REPORT_HTML)}
    with open(written[REPORT_CSV], "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(REPORT_COLUMNS)
        writer.writerows(report_rows(learners))
    with open(written[GAIN_CSV], "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(GAIN_COLUMNS)
        writer.writerows((g.objective, _pct(g.pre), _pct(g.post), "" if g.gain is None else f"{g.gain:.3f}",
                          g.learners) for g in class_gain(learners))
    written[REPORT_HTML].write_text(report_html(learners), encoding="utf-8")
    return written


class _Arguments(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line (no usage block) and status 2."""

    def error(self, message: str):
        self.exit(2, f"{_PROG}: {message} (usage: {_PROG} PATH... --out DIR)\n")


def main(argv=None) -> int:
    """The command line: read the progress files of PATH..., write the report in DIR; the exit status."""
    parser = _Arguments(prog=_PROG, description="The class report from the learners' progress files.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="progress files (progress-<learner>.json) or folders searched for them, e.g. submitted/")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the three files of the report")
    args = parser.parse_args(argv)
    learners = read_class(args.paths)
    if not learners:
        print(f"{_PROG}: no readable progress file in {', '.join(args.paths)}: nothing written", file=sys.stderr)
        return 1
    try:
        written = write_report(learners, args.out)
    except OSError as err:
        print(f"{_PROG}: cannot write the report in {args.out}: {err.strerror or err}", file=sys.stderr)
        return 1
    print(f"{len(learners)} learner{'' if len(learners) == 1 else 's'}: wrote "
          + ", ".join(str(path) for path in written.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
