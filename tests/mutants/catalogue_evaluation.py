"""Graded trajectory scores (``_evaluation/trajectory``, ``assign``, ``trajectory_check``) and claims of
the final output against the trace (``claims``, ``citations``)."""

from __future__ import annotations

from mutant import Mutant, m

PLANTED = "tests/unit/test_planted_evaluation.py"
TRAJ_T = ("tests/unit/test_trajectory_scores.py", PLANTED)
CLAIMS_T = ("tests/unit/test_rules_claims.py", PLANTED)

TJ = "_evaluation/trajectory.py"
AS = "_evaluation/assign.py"
TC = "_evaluation/trajectory_check.py"
GR = "_asserter/grading.py"
CL = "_evaluation/claims.py"
CI = "_evaluation/citations.py"

CATALOGUE: tuple[Mutant, ...] = (
    # -- trajectory scores ----------------------------------------------------------------------------
    m(
        "EV01",
        TJ,
        "return (len(args) - wrong) / len(args), tuple(missed)",
        "return float(wrong == 0), tuple(missed)",
        TRAJ_T,
        "no partial argument credit: a pair gets 1 or 0",
    ),
    m(
        "EV02",
        TJ,
        "big = min(len(expected), len(tools)) + 1",
        "big = 1",
        TRAJ_T,
        "one more pair no longer outweighs any argument credit",
    ),
    m(
        "EV03",
        TJ,
        "if len(same) < len(expected) and any(w is not None for w in column):",
        "if not same and any(w is not None for w in column):",
        TRAJ_T,
        "identical steps offered to the assignment once (too few for repeated expected steps)",
    ),
    m(
        "EV04",
        TJ,
        "return len(self.pairs) / len(self.tools) if self.tools else 0.0",
        "return len(self.pairs) / len(self.expected) if self.tools else 0.0",
        TRAJ_T,
        "precision divides by the expected steps (it is recall)",
    ),
    m(
        "EV05",
        TJ,
        "            row[j] = below[j + 1] + 1 if hit[i][j] else max(below[j], row[j + 1])",
        "            row[j] = below[j + 1] + 1 if hit[i][j] else below[j]",
        TRAJ_T,
        "the order table never skips a step of the run (the LCS too short)",
    ),
    m(
        "EV06",
        TC,
        "    min_score: float = 1.0,",
        "    min_score: float = 0.5,",
        TRAJ_T,
        "has_trajectory_score's default threshold is 0.5, not 1",
        equivalent="the asserter's method (_asserter/grading.py) passes min_score= always: the check "
        "function's own default is never used (EV19 plants it where it is)",
    ),
    m(
        "EV07",
        TC,
        '    metric: str = "f1",',
        '    metric: str = "recall",',
        TRAJ_T,
        "has_trajectory_score's default metric is recall, not f1",
        equivalent="the asserter's method (_asserter/grading.py) passes metric= always: the check "
        "function's own default is never used (EV20 plants it where it is)",
    ),
    m(
        "EV19",
        GR,
        '        metric: str = "f1",\n        min_score: float = 1.0,\n        message: str | None = None,\n    ) -> Self:',
        '        metric: str = "f1",\n        min_score: float = 0.5,\n        message: str | None = None,\n    ) -> Self:',
        TRAJ_T,
        "the asserter's has_trajectory_score: default threshold 0.5, not 1",
    ),
    m(
        "EV20",
        GR,
        '        metric: str = "f1",\n        min_score: float = 1.0,\n        message: str | None = None,\n    ) -> Self:',
        '        metric: str = "recall",\n        min_score: float = 1.0,\n        message: str | None = None,\n    ) -> Self:',
        TRAJ_T,
        "the asserter's has_trajectory_score: default metric recall, not f1",
    ),
    m(
        "EV08",
        TC,
        "ok = value >= min_score or math.isclose(value, min_score)",
        "ok = value > min_score or math.isclose(value, min_score)",
        TRAJ_T,
        "a score equal to the threshold",
        equivalent="a value equal to min_score is isclose to it: the or-branch passes it either way",
    ),
    m(
        "EV09",
        AS,
        "            if w is not None and w > 0:",
        "            if w is not None and w >= 0:",
        TRAJ_T,
        "the assignment keeps pairs of weight 0 (documented as left out)",
    ),
    m(
        "EV10",
        AS,
        "return [(r, c) for c, r in max_weight_assignment(flipped)]",
        "return [(c, r) for c, r in max_weight_assignment(flipped)]",
        TRAJ_T,
        "more rows than columns: the pairs come back transposed",
    ),
    m(
        "EV11",
        AS,
        "cost = [[top - (w if w is not None else 0.0) for w in row] for row in weights]",
        "cost = [[top - (w if w is not None else top) for w in row] for row in weights]",
        TRAJ_T,
        "a forbidden pair costs nothing: rows take it and lose a real pair",
    ),
    # -- claims ---------------------------------------------------------------------------------------
    m(
        "EV12",
        CL,
        "if any(t.succeeded and not _fits_claim(t, groups, args) for _, t in calls):",
        "if any(not _fits_claim(t, groups, args) for _, t in calls):",
        CLAIMS_T,
        "a failed call backs a claim",
    ),
    m(
        "EV13",
        CL,
        'if " ".join(claimed.casefold().split()) == " ".join(actual.casefold().split()):',
        'if " ".join(claimed.split()) == " ".join(actual.split()):',
        CLAIMS_T,
        "a claimed value compared with the argument case-sensitively",
    ),
    m(
        "EV14",
        CL,
        'return Decimal(claimed.replace(",", "")) == Decimal(actual.replace(",", ""))',
        'return claimed.replace(",", "") == actual.replace(",", "")',
        CLAIMS_T,
        "a claimed number compared as text (420 is not backed by 420.0)",
    ),
    m(
        "EV15",
        CL,
        "sources = [as_text(t.result) for t in steps.tools if t.succeeded and t.result is not None]",
        "sources = [as_text(t.result) for t in steps.tools if t.result is not None]",
        CLAIMS_T,
        "a failed call's result (its error text) backs a number in the answer",
    ),
    m(
        "EV16",
        CL,
        "    if len(claims) < min_count:",
        "    if len(claims) <= min_count:",
        CLAIMS_T,
        "min_count=n needs n+1 claims",
    ),
    m(
        "EV17",
        CI,
        "        elif _norm(citation.text) in _norm(text):",
        "        elif citation.text in text:",
        CLAIMS_T,
        "a quotation backed only with the same case and spacing",
    ),
    m(
        "EV18",
        CI,
        "            if any(a <= m.start() < b for a, b in quoted_spans):\n                continue",
        "            if False:\n                continue",
        CLAIMS_T,
        "numbers inside a quotation are checked alone too",
    ),
)
