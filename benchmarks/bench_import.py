"""Measure the cost of ``import textsearch`` in fresh processes.

python benchmarks/bench_import.py            # prints the median of 7 runs
python benchmarks/bench_import.py --check    # also fails if a provider SDK gets imported
                                             # or the median exceeds 150 ms
python benchmarks/bench_import.py --local    # also: from textsearch import LocalTextSearch,
                                             # and the wall time of `textsearch search` on an
                                             # existing index (--db, no folder walk)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import textsearch
elapsed = time.perf_counter() - t0
HEAVY = ('azure', 'mcp', 'openai', 'anthropic', 'jinja2', 'aiohttp', 'tiktoken', 'selectolax',
         'opentelemetry')
heavy = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in HEAVY})
print(json.dumps({"seconds": elapsed, "heavy": heavy}))
"""


LOCAL_PROBE = r"""
import json, time
t0 = time.perf_counter()
from textsearch import LocalTextSearch
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def _median_ms(probe: str, runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", probe], check=True, capture_output=True, text=True
        ).stdout
        samples.append(json.loads(out)["seconds"] * 1000)
    return statistics.median(samples), min(samples)


def _cli_search_wall_ms(runs: int) -> tuple[float, float]:
    """Wall time of ``textsearch search QUERY --db FILE`` on a 2,000-document index."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "index.sqlite3"
        build = (
            "import sys; from textsearch import LocalTextSearch; s = LocalTextSearch(sys.argv[1]);"
            "s.add_documents({'id': str(i), 'title': f'Note {i}',"
            " 'text': f'retry backoff jitter timeout note number {i} ' * 20} for i in range(2000))"
        )
        subprocess.run([sys.executable, "-c", build, str(db)], check=True)
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "textsearch", "search", "retry safely", "--db", str(db)],
                check=True,
                capture_output=True,
            )
            samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), min(samples)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--limit-ms", type=float, default=150.0)
    parser.add_argument("--local", action="store_true")
    args = parser.parse_args()
    if args.local:
        median, fastest = _median_ms(LOCAL_PROBE, args.runs)
        print(f"from textsearch import LocalTextSearch: median {median:.1f} ms (min {fastest:.1f})")
        median, fastest = _cli_search_wall_ms(args.runs)
        print(f"textsearch search --db FILE, wall: median {median:.0f} ms (min {fastest:.0f})")

    samples: list[float] = []
    heavy: list[str] = []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        data = json.loads(out)
        samples.append(data["seconds"] * 1000)
        heavy = data["heavy"]
    median = statistics.median(samples)
    print(
        f"import textsearch: median {median:.1f} ms over {args.runs} fresh processes "
        f"(min {min(samples):.1f}, max {max(samples):.1f}); provider SDKs loaded: {heavy or 'none'}"
    )
    if args.check and (heavy or median > args.limit_ms):
        print("FAIL: import textsearch is too heavy", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
