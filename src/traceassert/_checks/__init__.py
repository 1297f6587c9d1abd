"""Stage 4, checks: selections over a ``Trace`` and the groups of checks that read them.

Takes a ``Trace`` (or a ``Capture``, read live) and its records; gives check-group mixins that the
public ``TraceAsserter`` combines, and failures as ``TraceAssertionError`` with the rendered tree.
"""
