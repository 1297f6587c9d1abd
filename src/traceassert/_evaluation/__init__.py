"""Stage 5, evaluation: scores on top of the checks.

Takes the facts of a selection (inputs, outputs, tools, agents); gives evals and LLM-judge templates,
comparers and distances, ``expect`` matchers, recorded scores and the run's score report.
"""
