"""``compare``: several searches on one set, each tested against the first."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError
from textsearch.evaluation._data import EvaluationSet
from textsearch.evaluation._metrics import METRICS
from textsearch.evaluation._report import EvaluationReport
from textsearch.evaluation._run import Match, Progress, evaluate

__all__ = ["Comparison", "compare", "randomization_test"]


def randomization_test(
    first: Sequence[float], second: Sequence[float], *, permutations: int = 10_000, seed: int = 0
) -> float:
    """Two-sided paired randomization test of the mean difference; the p-value.

    Under the null hypothesis the two systems are exchangeable on each query, so each
    query's difference may have either sign: the p-value is the share of random sign
    assignments whose mean difference is at least as far from 0 as the observed one
    (counted with the observed assignment, so never 0). Queries with equal values change
    nothing and are skipped. Seeded: the same inputs give the same p-value.

    Raises:
        ConfigurationError: The two lists differ in length, or ``permutations`` < 1.
    """
    if len(first) != len(second):
        raise ConfigurationError("the two lists of per-query values differ in length")
    if isinstance(permutations, bool) or not isinstance(permutations, int) or permutations < 1:
        raise ConfigurationError("permutations= must be a whole number >= 1")
    differences = [b - a for a, b in zip(first, second, strict=True) if b != a]
    if not differences:
        return 1.0
    observed = abs(sum(differences))
    total = sum(differences)
    count = len(differences)
    rng = random.Random(seed)
    tolerance = 1e-12 * max(1.0, observed)
    extreme = 0
    for _ in range(permutations):
        bits = rng.getrandbits(count)
        flipped = 0.0
        for i, difference in enumerate(differences):
            if bits >> i & 1:
                flipped += difference
        # flipping the chosen ones: total - 2 * (their sum)
        if abs(total - 2.0 * flipped) >= observed - tolerance:
            extreme += 1
    return (extreme + 1) / (permutations + 1)


@dataclass(frozen=True)
class Comparison:
    """Several searches on one set: a report each, and p-values against the first.

    Attributes:
        reports: Label → `EvaluationReport`, in the order given (the first is the baseline).
        p_values: Label → metric → the paired randomization test's p-value against the
            baseline (the baseline itself is not listed).
        permutations: Random sign assignments per test.
    """

    reports: dict[str, EvaluationReport]
    p_values: dict[str, dict[str, float]]
    permutations: int

    @classmethod
    def from_reports(
        cls,
        reports: Mapping[str, EvaluationReport],
        *,
        permutations: int = 10_000,
        seed: int = 0,
    ) -> Comparison:
        """Compare reports made apart (by `evaluate`), the first as the baseline.

        Raises:
            ConfigurationError: No reports, or reports of different query lists.
        """
        names = list(reports)
        if not names:
            raise ConfigurationError("a comparison needs at least one report")
        base = reports[names[0]]
        ids = [q.id for q in base.queries]
        p_values: dict[str, dict[str, float]] = {}
        for offset, name in enumerate(names[1:], 1):
            other = reports[name]
            if [q.id for q in other.queries] != ids:
                raise ConfigurationError(
                    f"{name!r} was evaluated on other queries than {names[0]!r}"
                )
            p_values[name] = {
                metric: randomization_test(
                    [q.scores[metric] for q in base.queries],
                    [q.scores[metric] for q in other.queries],
                    permutations=permutations,
                    seed=seed + offset,
                )
                for metric in METRICS
            }
        return cls(dict(reports), p_values, permutations)

    @property
    def baseline(self) -> str:
        """The first search's label."""
        return next(iter(self.reports))

    def to_dict(self) -> dict[str, Any]:
        """The comparison as plain data (what `to_json` writes)."""
        return {
            "baseline": self.baseline,
            "permutations": self.permutations,
            "searches": [
                {
                    "name": name,
                    "means": {report.label(m): report.mean(m) for m in METRICS},
                    "p_values": {
                        report.label(m): p for m, p in self.p_values.get(name, {}).items()
                    },
                    "failures": len(report.failures),
                    "seconds": report.seconds,
                }
                for name, report in self.reports.items()
            ],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The comparison as JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_markdown(self) -> str:
        """A table: one row per search, each metric with its p-value against the baseline.

        A figure in bold differs from the baseline with p < 0.05.
        """
        first = self.reports[self.baseline]
        heads = [first.label(m) for m in METRICS]
        lines = [
            f"{first.dataset}: {len(first.queries)} queries; p: paired randomization test "
            f"against {self.baseline} ({self.permutations} permutations)",
            "",
            "| search | " + " | ".join(heads) + " | failed |",
            "|---|" + "---|" * len(heads) + "---|",
        ]
        for name, report in self.reports.items():
            cells = []
            for metric in METRICS:
                value = f"{report.mean(metric):.3f}"
                p = self.p_values.get(name, {}).get(metric)
                if p is not None:
                    value = f"**{value}**" if p < 0.05 else value
                    value += f" (p={p:.3f})"
                cells.append(value)
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {len(report.failures)} |")
        return "\n".join(lines)


def compare(
    searches: Mapping[str, TextSearch],
    dataset: EvaluationSet,
    *,
    k: int = 10,
    depth: int = 100,
    concurrency: int = 4,
    match: Match = "id",
    permutations: int = 10_000,
    seed: int = 0,
    progress: Progress | bool | None = None,
) -> Comparison:
    """Evaluate each search on ``dataset`` and test each against the first.

    Args:
        searches: Label → search, the baseline first (``{"keyword": ..., "hybrid": ...}``).
        dataset: The set (`load_beir`, `load_golden`).
        k: As for `evaluate`.
        depth: As for `evaluate`.
        concurrency: As for `evaluate`.
        match: As for `evaluate`.
        permutations: Random sign assignments per paired randomization test.
        seed: Seeds the test, so that a comparison is reproducible.
        progress: As for `evaluate`.

    Raises:
        ConfigurationError: No searches, or a bad setting.
    """
    if not isinstance(searches, Mapping) or not searches:
        raise ConfigurationError("compare() takes a non-empty mapping of label -> search")
    reports = {
        str(label): evaluate(
            search,
            dataset,
            k=k,
            depth=depth,
            concurrency=concurrency,
            match=match,
            name=str(label),
            progress=progress,
        )  # fmt: skip
        for label, search in searches.items()
    }
    return Comparison.from_reports(reports, permutations=permutations, seed=seed)
