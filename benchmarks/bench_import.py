"""Measure the cost of ``import textsearch`` in fresh processes.

python benchmarks/bench_import.py            # prints the median of 7 runs
python benchmarks/bench_import.py --check    # also fails if a provider SDK gets imported
                                             # or the median exceeds 150 ms
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import textsearch
elapsed = time.perf_counter() - t0
HEAVY = ('azure', 'mcp', 'openai', 'anthropic', 'jinja2', 'aiohttp', 'tiktoken')
heavy = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in HEAVY})
print(json.dumps({"seconds": elapsed, "heavy": heavy}))
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--limit-ms", type=float, default=150.0)
    args = parser.parse_args()
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
