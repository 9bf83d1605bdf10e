"""Lecture mode: one notebook served by Voila, with the code hidden, the widgets live and text large enough to read
on a projector.

Usage::

    .venv/bin/python scripts/present.py notebooks/02_projections.ipynb [--port=8866] [--zoom=1.5] [Voila options]
    .venv/bin/python scripts/present.py notebooks        # every notebook: pick one from the list, switch freely

(``make present NOTEBOOK=notebooks/02_projections.ipynb`` runs this; ``python -m course.present`` is the same.) Open the
address it prints; Ctrl+C stops it. The page shows the notebook's text, formulas and outputs without any code; every
widget is connected to a kernel of its own, so the class can watch the numbers change as you type. Each browser tab gets
a fresh kernel that runs the notebook top to bottom, so a reload starts the demo again from its first state.

Everything is served from the course's own installation: no script, font or style is fetched from the network.
The page template is ``presentation/voila/templates/lecture``: the notebook's outputs drawn as HTML by the server (as
nbconvert's ``lab`` template draws them) and its widgets made live by the course's own script,
``presentation/lecture-frontend`` (ipywidgets' widget manager connected to the kernel: Voila's own front end, a
JupyterLab application, took about a second to start before it asked the kernel for anything), with the page scaled by
``--zoom`` and its column centred on the screen. Each notebook is run in a kernel of its own before anyone opens it
(Voila's pre-heated kernels), so a page appears at once, and a reload at once too (it gets the next kernel, run in the
meantime).
"""

from __future__ import annotations

import os
import re
import sys

from course.plan import ROOT

DEFAULT_ZOOM = 1.5

# Defaults of the lecture mode; the same options given on the command line win.
DEFAULTS = [
    "--strip_sources=True",
    "--theme=light",
    # presentation/voila/templates/lecture: the outputs drawn by the server, the widgets by the course's own script.
    "--template=lecture",
    # Every page load starts a kernel, and Voila's own "page closed" signal is refused by this version (403, no
    # _xsrf cookie), so kernels of closed pages would pile up over a lecture. Shut a kernel down once no page has been
    # connected to it for 5 minutes; a kernel with a page open is never touched.
    "--MappingKernelManager.cull_idle_timeout=300",
    "--MappingKernelManager.cull_interval=60",
    # A page that opens at once: each notebook is run in a kernel before anyone asks for it, and the kernel a page
    # takes is replaced by a new one (run a second later), so a reload or a switch back to a notebook is at once too.
    "--preheat_kernel=True",
    "--pool_size=1",
    # ... but 10 s later, not Voila's 1 s: a page comes alive by asking its kernel for every widget's state, and gives
    # up after 4 s (ipywidgets' control channel), then draws "Error displaying widget: model not found". Running the
    # whole notebook again in a new kernel at that very moment slowed the answer past 4 s on a busy machine. A reload
    # within 10 s of the last load waits for the new kernel.
    "--VoilaKernelManager.fill_delay=10",
    # After a cell's reply, Voila waits this long for the rest of its output before it goes on without it. The
    # default, 4 s, is too short on a busy machine: a cell that builds an explorer sends hundreds of widget messages,
    # and the explorer was left out of the page, silently. The wait ends as soon as the kernel is idle.
    "--VoilaExecutor.iopub_timeout=120",
]


def parse_zoom(argv: list[str]) -> tuple[float, list[str]]:
    """Take ``--zoom=X`` (1 to 3) out of the arguments; the rest is for Voila."""
    zoom, rest = DEFAULT_ZOOM, []
    for arg in argv:
        m = re.fullmatch(r"--zoom=(.*)", arg)
        if m is None:
            rest.append(arg)
            continue
        try:
            zoom = float(m.group(1))
        except ValueError:
            raise SystemExit(f"--zoom must be a number between 1 and 3; got {m.group(1)!r}") from None
        if not 1 <= zoom <= 3:
            raise SystemExit(f"--zoom must be a number between 1 and 3; got {zoom}")
    return zoom, rest


def main(argv: list[str] | None = None) -> None:
    zoom, rest = parse_zoom(sys.argv[1:] if argv is None else argv)
    targets = [a for a in rest if not a.startswith("-")]
    if len(targets) != 1 or not (targets[0].endswith(".ipynb") or os.path.isdir(targets[0])):
        raise SystemExit(
            "usage: python scripts/present.py notebooks/NN_name.ipynb|notebooks [--port=8866] [--zoom=1.5] "
            "[Voila options]"
        )
    if not os.path.exists(targets[0]):
        raise SystemExit(f"{targets[0]}: no such notebook")
    # Voila finds templates under every folder on JUPYTER_PATH: add the course's own.
    here = str(ROOT / "presentation")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (here, os.environ.get("JUPYTER_PATH", "")) if p)
    from traitlets.config import Config
    from voila.app import Voila

    config = Config()
    # The template (presentation/voila/templates/lecture) scales the page by this much for the back of the room.
    config.VoilaConfiguration.resources = {"lecture_zoom": zoom}
    given = {a.split("=", 1)[0] for a in rest if a.startswith("--")}
    args = [d for d in DEFAULTS if d.split("=", 1)[0] not in given] + rest
    Voila.launch_instance(argv=args, config=config)


if __name__ == "__main__":
    main()
