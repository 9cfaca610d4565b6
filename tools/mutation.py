"""Mutation testing of the modules whose tests pin promises (issue #24), with mutmut.

    python tools/mutation.py                       # every target, in a scratch copy
    python tools/mutation.py --only _redact        # one target
    python tools/mutation.py --keep /tmp/mut       # keep the copy (mutmut show NAME there)
    python tools/mutation.py --only _cache --keep /tmp/mut --score-only   # score that run again

For each target module it copies the project to a scratch folder, runs ``mutmut run`` with
the tests that cover the module, and prints killed / survived per module. Survivors whose
change is only a string literal (a message, a log text, a name in a tuple of names) and the
mutants listed in ``EQUIVALENT`` below (a change no behaviour can tell apart) are set aside,
as the issue's target says; the score is killed / (all - set aside). Not run in CI: it takes
minutes per module.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: module -> the tests that cover it
TARGETS: dict[str, list[str]] = {
    "textsearch/_http/_redact.py": ["tests/test_redact.py", "tests/test_http.py"],
    "textsearch/compose/_cache.py": [
        "tests/test_compose_cache.py",
        "tests/test_compose_hardening.py",
        "tests/test_mutation_cache.py",
    ],
    "textsearch/connectors/web/_portable.py": [
        "tests/connectors/web/test_portable.py",
        "tests/plugins/test_web_filter_parameters.py",
        "tests/connectors/web/test_portable_edges.py",
    ],
    "textsearch/connectors/local/_query.py": [
        "tests/connectors/local/test_local.py",
        "tests/connectors/local/test_local_engines.py",
        "tests/connectors/local/test_local_bool_filters.py",
        "tests/connectors/local/test_local_filter_edges.py",
    ],
    "textsearch/plugins/_parameters.py": [
        "tests/plugins/test_parameters.py",
        "tests/plugins/test_function.py",
        "tests/plugins/test_web_filter_parameters.py",
        "tests/plugins/test_mutation_parameters.py",
    ],
}

#: mutants no test can tell from the original, with why (module-qualified mutmut names)
EQUIVALENT: dict[str, str] = {
    "textsearch._http._redact.x_scrub_exception__mutmut_7": (
        "copy = None in the fallback: the next check replaces it with the same Exception"
    ),
    "textsearch._http._redact.x_scrub_exception__mutmut_8": (
        "the fallback's text: replaced by the same Exception right after"
    ),
    "textsearch._http._redact.x_scrub_exception__mutmut_9": (
        "type(None) in the fallback's text: replaced by the same Exception right after"
    ),
    "textsearch._http._redact.x_register_secret__mutmut_17": (
        "_installed = None: falsy, so the filter is added again, and addFilter ignores a "
        "filter already there"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_model__mutmut_37": (
        "extra=None is pydantic's default, which is 'ignore'"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_model__mutmut_38": (
        "validate_by_name=None is pydantic's default, which is False"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_model__mutmut_40": (
        "extra left out: pydantic's default is 'ignore'"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_model__mutmut_41": (
        "validate_by_name left out: pydantic's default is False"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_schema__mutmut_6": (
        "the fallback of properties: the schema always has them ('query' is always there)"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_schema__mutmut_8": (
        "the fallback of properties: the schema always has them ('query' is always there)"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_schema__mutmut_21": (
        "the fallback 1 instead of 0: only a None default is dropped, either is not None"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_schema__mutmut_36": (
        "the fallback of required: the schema always lists 'query' as required"
    ),
    "textsearch.plugins._parameters.xǁParameterSpecǁ_build_schema__mutmut_38": (
        "the fallback of required: the schema always lists 'query' as required"
    ),
    "textsearch.plugins._parameters.x__clamp__mutmut_17": (
        "number <= ge: at ge it becomes int(ge), the same number (top/skip bounds are ints)"
    ),
    "textsearch.plugins._parameters.x__clamp__mutmut_22": (
        "number >= le: at le it becomes int(le), the same number (top/skip bounds are ints)"
    ),
    "textsearch.connectors.web._portable.xǁFreshnessǁdates__mutmut_2": (
        "and -> or in an assert: parse_freshness only builds a range with both dates"
    ),
    "textsearch.connectors.web._portable.x_split_filter__mutmut_125": (
        "the freshness kept is a Freshness or None already, so the isinstance test changes nothing"
    ),
    "textsearch.connectors.web._portable.x__as_str__mutmut_2": (
        "the values kept are str or None already, so the isinstance test changes nothing"
    ),
    "textsearch.connectors.web._portable.x_url_allowed__mutmut_9": (
        "host = '' instead of None for an unreadable URL: the next line refuses both"
    ),
    "textsearch.connectors.local._query.x_plan_query__mutmut_4": (
        "an ASCII word split into CJK/other runs is one run, itself"
    ),
    "textsearch.connectors.local._query.x_plan_query__mutmut_8": (
        "a CJK run sent down the Latin path: lower() leaves it alone, no stop word is CJK"
    ),
    "textsearch.connectors.local._query.x_id_text__mutmut_8": (
        "abs(value) <= 1e15: at 1e15 both spellings are '1000000000000000.0'"
    ),
    "textsearch.connectors.local._query.x_id_text__mutmut_9": (
        "< 1e15 + 1: the only whole float in between is 1e15, spelled alike both ways"
    ),
}

_STRING_ONLY = re.compile(r"""^[-+]\s""")


@dataclass
class Score:
    module: str
    total: int
    killed: int
    survived: list[str]
    set_aside: list[str]

    @property
    def percent(self) -> float:
        counted = self.total - len(self.set_aside)
        return 100.0 * self.killed / counted if counted else 100.0


def _only_strings_changed(diff: str) -> bool:
    # A changed line is "-..."/"+..." ("-def f(x='a')" has no space after the sign), not the
    # "---"/"+++" file names.
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    removed = [line[1:].strip() for line in lines if line.startswith("-")]
    added = [line[1:].strip() for line in lines if line.startswith("+")]
    if len(removed) != 1 or len(added) != 1:
        return False
    strip = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
    return strip.sub('""', removed[0]) == strip.sub('""', added[0])


def _statuses(workdir: Path, python: str) -> list[tuple[str, str]]:
    listing = subprocess.run(
        [python, "-m", "mutmut", "results", "--all", "true"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    # Statuses may be two words ("not checked", "no tests").
    return re.findall(r"^\s*(\S+): (\w[\w ]*)$", listing, re.M)


def run_one(module: str, tests: list[str], workdir: Path, python: str, run: bool = True) -> Score:
    if run:
        present = [t for t in tests if (workdir / t).exists()]
        config = (
            "\n[tool.mutmut]\n"
            f'source_paths = ["{module}"]\n'
            f"pytest_add_cli_args_test_selection = {present!r}\n"
            'also_copy = ["textsearch", "tests", "benchmarks"]\n'
        ).replace("'", '"')
        pyproject = workdir / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8").split("\n[tool.mutmut]\n")[0]
        pyproject.write_text(text + config, encoding="utf-8")
        shutil.rmtree(workdir / "mutants", ignore_errors=True)
        for _ in range(2):
            # A second run picks up where the first stopped: mutmut sometimes stops before
            # the mutants (its look at the unmutated tests failing on a loaded machine).
            subprocess.run(
                [python, "-m", "mutmut", "run"],
                cwd=workdir,
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if not any(status == "not checked" for _, status in _statuses(workdir, python)):
                break
    names = _statuses(workdir, python)
    survived = [name for name, status in names if status in ("survived", "no tests")]
    # A mutant that makes the tests hang past mutmut's deadline is caught, like a failure.
    killed = sum(1 for _, status in names if status in ("killed", "timeout"))
    unchecked = [name for name, status in names if status == "not checked"]
    if unchecked:
        print(f"{module}: {len(unchecked)} mutants not checked; run again", file=sys.stderr)
    set_aside = []
    for name in survived:
        shown = subprocess.run(
            [python, "-m", "mutmut", "show", name],
            cwd=workdir,
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if name in EQUIVALENT or _only_strings_changed(shown):
            set_aside.append(name)
    return Score(module, len(names), killed, [s for s in survived if s not in set_aside], set_aside)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the targets whose path contains this text")
    parser.add_argument("--keep", type=Path, help="scratch folder to use and keep")
    parser.add_argument(
        "--score-only",
        action="store_true",
        help="score the mutants already run in the --keep folder (one --only target)",
    )
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="textsearch-mutation-"))
    if not (work / "pyproject.toml").exists():
        shutil.copytree(
            ROOT,
            work,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(".git", ".venv", "mutants", "__pycache__", "site"),
        )
    scores = [
        run_one(module, tests, work, sys.executable, run=not args.score_only)
        for module, tests in TARGETS.items()
        if not args.only or args.only in module
    ]
    print("| module | mutants | killed | set aside | survived | score |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in scores:
        print(
            f"| `{s.module}` | {s.total} | {s.killed} | {len(s.set_aside)} | "
            f"{len(s.survived)} | {s.percent:.0f} % |"
        )
    for s in scores:
        for name in s.survived:
            print("survived:", name)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(s.percent >= 90 for s in scores) else 1


if __name__ == "__main__":
    raise SystemExit(main())
