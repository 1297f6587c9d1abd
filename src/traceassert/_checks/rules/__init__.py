"""Rules over the whole run: properties of the sequence of tool calls in a selection.

Takes a ``Selection``; gives check functions (``Selection -> Selection``) in the grammar of the asserter:
``temporal`` (order: after, directly after, only after, never after, starts and ends with, retries,
repeated calls), ``milestones`` (a partial order of expected steps, matched by an optimal assignment
(``assignment``), and steps that must never happen), ``privilege`` (allow- and deny-lists of tools,
handoffs only to listed agents). ``steps`` is what they share: the run as numbered steps, the words of
a counterexample, and the "cannot tell" of a run that records no tool execution.
"""

__all__: list[str] = []
