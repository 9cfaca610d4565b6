"""What the markup readers cost ``index_path``: today's code against an older commit's.

    python benchmarks/bench_readers.py                      # against the commit before #22
    python benchmarks/bench_readers.py --baseline REF --rounds 7 --html DIR
    python benchmarks/bench_readers.py --baseline none      # today's figures only
    python benchmarks/bench_readers.py --warm               # without the parsers' import cost

Each set is indexed in a fresh child process per round, today's code and the baseline's in
turn (interleaved, so a change in the machine's load hits both alike), and CPU time is what is
compared: on a shared machine wall time measures the neighbours. Printed per set: the median
CPU seconds of ``index_path`` and of ``split_document`` alone (reading the markup into
passages), for both trees, and their ratio. The baseline is ``git archive REF textsearch``
unpacked into a temporary folder, run with the same interpreter and dependencies. The whole
process's CPU (interpreter, imports, opening the index, ``index_path``) is printed too: a tree
that loads a module lazily pays for it inside ``index_path``, one that loads it with
``LocalTextSearch`` pays for it before the clock starts.

The sets are real projects' docs from ``benchmarks/doc_sets.py`` (sdists fetched through pip
once, then cached): click's MyST Markdown, Flask's reStructuredText, Django's
reStructuredText ``.txt`` files; ``--html DIR`` adds the HTML files under DIR. Each round
is a new process, so the figures include importing and setting up the parsers (markdown-it
~20 ms; docutils ~40 ms, which a MyST set whose ``{eval-rst}`` bodies all read without it,
like click's, never loads); ``--warm`` reads the set once before the clock starts, which
leaves the rate at which files are read. Both trees' modules are compiled to bytecode once,
before the rounds, as an installed package's are (``--source``: at every import, when
PYTHONDONTWRITEBYTECODE is set, as the figures before 2026-11-27 were taken).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import doc_sets

# The last main commit whose readers were line-by-line regular expressions.
DEFAULT_BASELINE = "45f4c36"
ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, os, sys, tempfile, time
folder, suffixes, engine = sys.argv[1], tuple(sys.argv[2].split(",")), sys.argv[3]
from pathlib import Path
from textsearch import LocalTextSearch
try:
    import textsearch.documents._split as split
except ImportError:  # a baseline from before reading moved into textsearch/documents/
    import textsearch.connectors.local._split as split
inner = split.split_document
if sys.argv[4] == "warm":  # parsers imported and set up before the clock starts
    for path in sorted(Path(folder).rglob("*")):
        if path.suffix in suffixes and path.is_file():
            inner(path.read_bytes(), path.suffix)
spent = [0.0]
def timed(*args, **kwargs):
    start = time.process_time()
    try:
        return inner(*args, **kwargs)
    finally:
        spent[0] += time.process_time() - start
split.split_document = timed
with tempfile.TemporaryDirectory() as tmp:
    search = LocalTextSearch(os.path.join(tmp, "r.sqlite3"), engine=engine)
    start = time.process_time()
    report = search.index_path(folder, extensions=suffixes)
    cpu = time.process_time() - start
    passages = search._db.execute("SELECT count(*) FROM passages").fetchone()[0]
    search.close()
print(json.dumps({"cpu": cpu, "split": spent[0], "files": report.indexed, "passages": passages,
                  "process": time.process_time()}))
"""


def child_env(tree: Path, pycache: Path | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
    if pycache is not None:
        # An installed package has its bytecode (pip compiles it): each tree's modules are
        # compiled once, into a folder of the benchmark's, not at every round's import.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def compile_tree(tree: Path, pycache: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "textsearch")],
        env=child_env(tree, pycache), check=True, capture_output=True, timeout=600,
    )  # fmt: skip


def run_child(
    tree: Path,
    folder: Path,
    suffixes: tuple[str, ...],
    engine: str,
    warm: bool,
    pycache: Path | None = None,
) -> dict[str, float]:
    # cwd too: ``python -c`` puts the working folder first on sys.path.
    env = child_env(tree, pycache)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), ",".join(suffixes), engine,
         "warm" if warm else "cold"],
        env=env, cwd=tree, check=True, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def baseline_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "textsearch"],
        check=True, capture_output=True, timeout=120,
    ).stdout  # fmt: skip
    into.mkdir(parents=True, exist_ok=True)
    path = into / "archive.tar"
    path.write_bytes(archive)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    return into


def sets(html: str | None) -> list[tuple[str, Path, tuple[str, ...]]]:
    chosen: list[tuple[str, Path, tuple[str, ...]]] = []
    for label, name, suffixes in (
        ("Markdown/MyST (click)", "click", (".md",)),
        ("reStructuredText (Flask)", "flask", (".rst",)),
        ("reStructuredText .txt (Django)", "django", (".txt",)),
    ):
        try:
            chosen.append((label, doc_sets.doc_set(name), suffixes))
        except OSError as exc:
            print(f"skipped {label}: {exc}", file=sys.stderr)
    if html:
        chosen.append(("HTML", Path(html), (".html", ".htm")))
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git ref, or 'none'")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--html", metavar="DIR", help="also index the HTML files under DIR")
    parser.add_argument("--engine", default="sqlite", choices=["auto", "sqlite", "tantivy"])
    parser.add_argument("--only", help="run only the sets whose label contains this")
    parser.add_argument(
        "--source",
        action="store_true",
        help="compile the trees' modules at every import when PYTHONDONTWRITEBYTECODE is set "
        "(the figures before 2026-11-27), rather than once, as an installed package has them",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="read every file once before timing: the rate without the parsers' import cost",
    )
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"{os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; "
        f"engine {args.engine}; median CPU seconds of {args.rounds} rounds"
        + ("; parsers warmed up first" if args.warm else "")
        + ("; modules compiled at each import" if args.source else "")
    )
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"today": ROOT}
        if args.baseline != "none":
            trees["baseline"] = baseline_tree(args.baseline, Path(tmp) / "baseline")
        pycache = None if args.source else Path(tmp) / "pycache"
        if pycache is not None:
            for tree in trees.values():
                compile_tree(tree, pycache)
        for label, folder, suffixes in sets(args.html):
            if args.only and args.only.lower() not in label.lower():
                continue
            runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    runs[name].append(
                        run_child(tree, folder, suffixes, args.engine, args.warm, pycache)
                    )
            figures = {
                name: (
                    statistics.median(r["cpu"] for r in results),
                    statistics.median(r["split"] for r in results),
                    results[0]["files"],
                    results[0]["passages"],
                    statistics.median(r["process"] for r in results),
                )
                for name, results in runs.items()
            }
            cpu, split, files, passages, whole = figures["today"]
            line = (
                f"{label}: {files:.0f} files, {passages:.0f} passages; "
                f"index_path {cpu:.3f} s, split {split:.3f} s, whole process {whole:.3f} s"
            )
            if "baseline" in figures:
                old_cpu, old_split, _, old_passages, old_whole = figures["baseline"]
                line += (
                    f"; baseline {old_cpu:.3f} s, split {old_split:.3f} s, whole process "
                    f"{old_whole:.3f} s ({old_passages:.0f} passages); ratio index_path "
                    f"{cpu / old_cpu:.2f}x, split {split / max(old_split, 1e-9):.2f}x, "
                    f"whole process {whole / old_whole:.2f}x"
                )
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
