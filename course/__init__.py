"""The course's authoring tools: what an author runs, never what a learner imports.

One module per job, each imported normally (the scripts in ``scripts/`` and ``python -m course.<module>`` call the
same ``main``):

============================  ===================================================================================
``course.plan``               ``course.toml`` read once: the notebooks in course order, as paths
``course.runner``             re-run notebooks so that a re-run changes no byte (``make notebooks``)
``course.navigation``         the navigation lines and the index's course map (``make navigation``)
``course.site``               the static web site (``make site``); ``course.site_conf`` is its Sphinx configuration
``course.student``            the student edition, graded with nbgrader (``make student``)
``course.present``            the lecture mode in Voila (``make present``)
``course.browser``            JupyterLab and Voila started for the browser tests and the benchmarks, and driven
``course.widget_pages``       the course widgets read and driven in a real page, as a learner does
============================  ===================================================================================

The learner's ``helpers`` package never imports this one; this one imports ``helpers`` (the plan's reader,
:mod:`helpers.core.course`, is the course's one reader of ``course.toml``, which 00's progress view also needs).
"""
