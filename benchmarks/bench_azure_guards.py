"""Benchmark: what a hostile Azure AI Search endpoint costs a search, async and sync.

The loopback emulator (tests/emulators) answers with a wire fault; each scenario runs one
search through the real azure-search-documents client in a fresh process, which reports its
wall time, its peak memory (max RSS) and the error it got:

* ``bomb``: 200 with ``Content-Encoding: gzip`` and 1 GiB of zeros compressed to about 1 MB;
* ``drip-headers`` / ``drip-body``: one byte every 0.2 s, in the headers or in the body, so
  the per-read timeout (10 s here) never fires; the connector's ``deadline`` is 5 s.

``--code DIR`` runs the scenarios against another checkout of textsearch (e.g. the code before
the guards: ``git archive <commit> | tar -x -C DIR``); a scenario still running after
``--give-up`` seconds is stopped (by its pid) and reported as such.

Usage::

    python benchmarks/bench_azure_guards.py
    python benchmarks/bench_azure_guards.py --code /tmp/old-textsearch --give-up 60
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("bomb", "drip-headers", "drip-body")


def _load(name: str) -> Any:
    """A module of this checkout's tests/emulators, whatever ``textsearch`` is imported."""
    path = ROOT / "tests" / "emulators" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def child(scenario: str, mode: str) -> None:
    import asyncio
    import resource
    import threading

    from textsearch import AzureAISearchTextSearch

    azure_faults = _load("azure_faults")
    AzureSearchEmulator = _load("azure_search").AzureSearchEmulator

    stop = threading.Event()
    if scenario == "bomb":
        writer = azure_faults.gzip_bomb(1 << 30)
    else:
        writer = azure_faults.drip(in_headers=scenario == "drip-headers", interval=0.2, stop=stop)
    accepted = inspect.signature(AzureAISearchTextSearch).parameters
    extra: dict[str, Any] = {"deadline": 5.0} if "deadline" in accepted else {}
    with AzureSearchEmulator() as emu:
        emu.answer_next(writer)
        search = AzureAISearchTextSearch(
            endpoint=emu.endpoint,
            index_name="kb-docs",
            api_key="test-admin-key",
            max_retries=0,
            timeout=10.0,
            **extra,
        )
        started = time.monotonic()
        try:
            if mode == "sync":
                search.search_sync("retry")
            else:
                asyncio.run(search.search("retry"))
            outcome = "no error"
        except Exception as exc:
            outcome = type(exc).__name__
        elapsed = time.monotonic() - started
        stop.set()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row = {"seconds": round(elapsed, 2), "peak_rss_mb": round(peak_mb), "error": outcome}
    print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="textsearch checkout to run")
    parser.add_argument("--give-up", type=float, default=60.0)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    env = dict(os.environ)
    env["PYTHONPATH"] = str(args.code.resolve())
    print(f"code: {args.code.resolve()}\n")
    print("| scenario | mode | seconds | peak RSS MB | error |")
    print("|---|---|---|---|---|")
    for scenario in SCENARIOS:
        for mode in ("async", "sync"):
            proc = subprocess.Popen(
                [sys.executable, __file__, "--child", scenario, mode],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            try:
                out, _ = proc.communicate(timeout=args.give_up)
                row = json.loads(out.strip().splitlines()[-1])
                cells = [row["seconds"], row["peak_rss_mb"], row["error"]]
            except subprocess.TimeoutExpired:
                proc.kill()  # our own child, by its pid
                proc.wait()
                cells = [f"> {args.give_up:g} (stopped)", "-", "still waiting"]
            except (ValueError, IndexError):
                cells = ["-", "-", f"crashed (exit {proc.returncode})"]
            print(f"| {scenario} | {mode} | " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
