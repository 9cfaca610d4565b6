"""Benchmark: the web connectors' HTTP engine against the floor (aiohttp) and bare httpx.

A local server (a separate process, plain asyncio, HTTP/1.1 keep-alive) answers every request
with a realistic 10-result Bing body, over HTTP and over HTTPS (a throwaway self-signed
certificate made at run time). Each scenario runs in its own client process so that peak
memory and CPU time belong to that scenario alone. Measured after a warm-up:

* client CPU time per search (process_time of the client process),
* throughput (searches per second of wall time),
* new connections per search (accepted connections counted by the server),
* peak memory (max RSS of the client process).

Rows: (a) "aiohttp": one aiohttp.ClientSession, GET, json.loads, a list of (name, snippet,
url) tuples -- the floor a Python client reaches; (b) "httpx": the same with an
httpx.AsyncClient pooled at 10 connections; (c) "engine": BingTextSearch
.get_text_search_results with its default transport (httpx); (d) "engine-fast": the same
with transport="aiohttp". Ratios are to the floor.

Usage::

    python benchmarks/bench_web.py                 # full run, prints a Markdown table
    python benchmarks/bench_web.py --quick         # fewer searches
    python benchmarks/bench_web.py --provider brave  # BraveTextSearch and a 10-result Brave body
    python benchmarks/bench_web.py --sync          # blocking twins: engine (httpx) and
                                                   # engine-fast (transport="urllib3") vs bare
                                                   # httpx.Client, httpx2.Client and
                                                   # urllib3.PoolManager (when installed),
                                                   # from 1 and 16 threads
    python benchmarks/bench_web.py --check         # exit 1 if the fast path costs more than
                                                   # 1.5x the floor's CPU, or opens connections
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import resource
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KEY = "bench-key-0123456789abcdef"
QUERY = "httpx retry transport"


# -- the server (separate process) ---------------------------------------------------------


def bing_body() -> bytes:
    pages = []
    for i in range(10):
        pages.append(
            {
                "id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{i}",
                "name": f"Result {i}: Transports and retries in \ue000HTTPX\ue001",
                "url": f"https://www.example{i}.org/advanced/transports/{i}",
                "isFamilyFriendly": True,
                "displayUrl": f"https://www.example{i}.org/advanced/transports/{i}",
                "snippet": (
                    "HTTPX's Client also accepts a transport argument. This argument allows "
                    "you to provide a custom Transport object that will be used to perform the "
                    f"actual sending of the requests, with \ue000retries\ue001={i} and more."
                ),
                "deepLinks": [
                    {"name": "Async Support", "url": f"https://www.example{i}.org/async/"},
                    {"name": "Clients", "url": f"https://www.example{i}.org/clients/"},
                ],
                "dateLastCrawled": "2025-06-30T08:14:00.0000000Z",
                "datePublished": "2024-11-02T00:00:00.0000000",
                "language": "en",
                "isNavigational": False,
            }
        )
    body = {
        "_type": "SearchResponse",
        "queryContext": {"originalQuery": QUERY},
        "webPages": {
            "webSearchUrl": "https://www.bing.com/search?q=httpx+retry+transport",
            "totalEstimatedMatches": 48200,
            "value": pages,
        },
        "rankingResponse": {
            "mainline": {
                "items": [
                    {
                        "answerType": "WebPages",
                        "resultIndex": i,
                        "value": {"id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{i}"},
                    }
                    for i in range(10)
                ]
            }
        },
    }
    return json.dumps(body).encode()


def brave_body() -> bytes:
    """A 10-result Brave web search answer (text_decorations=false, as the connector asks)."""
    results = []
    for i in range(10):
        results.append(
            {
                "type": "search_result",
                "subtype": "generic",
                "is_live": False,
                "title": f"Result {i}: Transports and retries in HTTPX",
                "url": f"https://www.example{i}.org/advanced/transports/{i}",
                "is_source_local": False,
                "is_source_both": False,
                "description": (
                    "HTTPX's Client also accepts a transport argument. This argument allows "
                    "you to provide a custom Transport object that will be used to perform the "
                    f"actual sending of the requests, with retries={i} &amp; more."
                ),
                "page_age": "2024-11-02T00:00:00",
                "profile": {
                    "name": f"Example{i}",
                    "url": f"https://www.example{i}.org/advanced/transports/{i}",
                    "long_name": f"example{i}.org",
                    "img": "https://imgs.search.brave.com/favicon.png",
                },
                "language": "en",
                "family_friendly": True,
                "meta_url": {
                    "scheme": "https",
                    "netloc": f"example{i}.org",
                    "hostname": f"www.example{i}.org",
                    "favicon": "https://imgs.search.brave.com/favicon.png",
                    "path": "› advanced › transports",
                },
                "age": "November 2, 2024",
            }
        )
    body = {
        "type": "search",
        "query": {"original": QUERY, "more_results_available": True, "country": "us"},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": i} for i in range(10)]},
        "web": {"type": "search", "results": results, "family_friendly": True},
    }
    return json.dumps(body).encode()


def serve(port_file: str, certfile: str | None, keyfile: str | None) -> None:
    payload = bing_body()
    response = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
        b"BingAPIs-TraceId: 0123456789ABCDEF\r\n"
        + f"Content-Length: {len(payload)}\r\n\r\n".encode()
        + payload
    )
    brave_payload = brave_body()
    brave_response = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
        + f"Content-Length: {len(brave_payload)}\r\n\r\n".encode()
        + brave_payload
    )
    connections = 0

    class Protocol(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            nonlocal connections
            connections += 1
            self.transport = transport
            self.buffer = b""

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while True:
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = self.buffer[:end]
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                if len(self.buffer) < end + 4 + length:
                    return
                self.buffer = self.buffer[end + 4 + length :]
                if head.startswith(b"GET /__stats"):
                    stats = json.dumps({"connections": connections}).encode()
                    self.transport.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + f"Content-Length: {len(stats)}\r\n\r\n".encode()
                        + stats
                    )
                elif head.startswith(b"GET /res/"):
                    self.transport.write(brave_response)
                else:
                    self.transport.write(response)

    def write_port(port: int) -> None:
        Path(port_file).write_text(str(port))

    async def main() -> None:
        context = None
        if certfile:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(certfile, keyfile)
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Protocol, "127.0.0.1", 0, ssl=context, backlog=512)
        port = server.sockets[0].getsockname()[1]
        write_port(port)
        await asyncio.Event().wait()

    asyncio.run(main())


def make_certificate(folder: Path) -> tuple[str, str]:
    """A throwaway self-signed certificate for localhost/127.0.0.1: the web tests' emulator
    makes it with ``cryptography``; without that package, ``openssl`` does."""
    if importlib.util.find_spec("cryptography") is not None:
        sys.path.insert(0, str(ROOT))
        from tests.emulators.web import make_certificate as with_cryptography

        return with_cryptography(folder)
    certfile, keyfile = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(keyfile), "-out", str(certfile),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return str(certfile), str(keyfile)


# -- the client (one process per scenario) -------------------------------------------------


def stats(base: str, cafile: str | None) -> int:
    import http.client

    host, port = base.split("://")[1].split(":")
    if base.startswith("https"):
        context = ssl.create_default_context(cafile=cafile)
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, int(port), context=context, timeout=10
        )
    else:
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", "/__stats")
        return int(json.loads(conn.getresponse().read())["connections"])
    finally:
        conn.close()


def bing_rows(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(p["name"], p["snippet"], p["url"]) for p in data["webPages"]["value"]]


def brave_rows(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(r["title"], r["description"], r["url"]) for r in data["web"]["results"]]


def request_shape(base: str, provider: str) -> tuple[str, dict[str, str], dict[str, str], Any]:
    """(url, headers, params, rows_of): the floor rows send what the connector sends."""
    if provider == "brave":
        headers = {"X-Subscription-Token": KEY, "Accept": "application/json"}
        params = {"q": QUERY, "count": "10", "text_decorations": "false"}
        return base + "/res/v1/web/search", headers, params, brave_rows
    headers = {"Ocp-Apim-Subscription-Key": KEY}
    return base + "/v7.0/search", headers, {"q": QUERY, "count": "10"}, bing_rows


def make_connector(provider: str, url: str, transport: str = "httpx") -> Any:
    sys.path.insert(0, str(ROOT))
    if provider == "brave":
        from textsearch.connectors.web.brave import BraveTextSearch

        return BraveTextSearch(KEY, endpoint=url, transport=transport)
    from textsearch.connectors.web.bing import BingTextSearch

    return BingTextSearch(KEY, endpoint=url, transport=transport)


def measure(
    batch: Any, base: str, cafile: str | None, n: int, warmup: int
) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, new connections) of ``batch(n)`` after ``batch(warmup)``."""
    batch(warmup)
    before = stats(base, cafile)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    batch(n)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return cpu, wall, stats(base, cafile) - before - 1  # minus the stats connection itself


def run_sync_client(
    kind: str, base: str, threads: int, n: int, warmup: int, provider: str
) -> dict[str, Any]:
    """The blocking twins: ``threads`` threads share one client (C=1 is one thread)."""
    import threading

    import httpx

    cafile = os.environ.get("SSL_CERT_FILE")
    url, headers, params, rows_of = request_shape(base, provider)
    if kind == "httpx-sync":
        # A bare pooled httpx.Client with a pool as large as the thread count.
        client = httpx.Client(limits=httpx.Limits(max_connections=16, max_keepalive_connections=16))

        def one() -> int:
            response = client.get(url, params=params, headers=headers)
            return len(rows_of(json.loads(response.content)))

        close = client.close
    elif kind == "httpx2-sync":
        # The maintained fork (test extra): the same bare client, pool sized like httpx's.
        import httpx2

        client2 = httpx2.Client(
            limits=httpx2.Limits(max_connections=16, max_keepalive_connections=16)
        )

        def one() -> int:
            response = client2.get(url, params=params, headers=headers)
            return len(rows_of(json.loads(response.content)))

        close = client2.close
    elif kind == "urllib3-sync":
        # urllib3's PoolManager (what requests sits on): a bare, thread-safe blocking pool.
        import urllib.parse

        import urllib3

        manager = urllib3.PoolManager(maxsize=16, block=True, ca_certs=cafile)
        full = url + "?" + urllib.parse.urlencode(params)

        def one() -> int:
            response = manager.request("GET", full, headers=headers)
            return len(rows_of(json.loads(response.data)))

        close = manager.clear
    else:
        transport = "urllib3" if kind == "engine-fast-sync" else "httpx"
        connector = make_connector(provider, url, transport)

        def one() -> int:
            return len(connector.get_text_search_results_sync(QUERY, top=10))

        close = connector.close

    def batch(count: int) -> None:
        lock = threading.Lock()
        remaining = [count]

        def worker() -> None:
            while True:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                assert one() == 10

        pool = [threading.Thread(target=worker) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()

    cpu, wall, conns = measure(batch, base, cafile, n, warmup)
    close()
    return {
        "cpu_us": cpu / n * 1e6,
        "throughput": n / wall,
        "new_conns": conns / n,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


async def run_client(
    kind: str, base: str, concurrency: int, n: int, warmup: int, provider: str = "bing"
) -> dict[str, Any]:
    cafile = os.environ.get("SSL_CERT_FILE")
    url, headers, params, rows_of = request_shape(base, provider)
    if kind == "aiohttp":
        import aiohttp

        context = ssl.create_default_context(cafile=cafile) if cafile else None
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context or True))

        async def one() -> int:
            async with session.get(url, params=params, headers=headers) as response:
                data = json.loads(await response.read())
            return len(rows_of(data))

        async def close() -> None:
            await session.close()

    elif kind == "httpx":
        import httpx

        client = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=10, max_keepalive_connections=10)
        )

        async def one() -> int:
            response = await client.get(url, params=params, headers=headers)
            data = json.loads(response.content)
            return len(rows_of(data))

        async def close() -> None:
            await client.aclose()

    else:
        transport = "aiohttp" if kind == "engine-fast" else "httpx"
        connector = make_connector(provider, url, transport)

        async def one() -> int:
            return len(await connector.get_text_search_results(QUERY, top=10))

        async def close() -> None:
            await connector.aclose()

    async def batch(count: int) -> None:
        remaining = count

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                assert await one() == 10

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    await batch(warmup)
    before = stats(base, cafile)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await batch(n)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    after = stats(base, cafile)
    await close()
    return {
        "cpu_us": cpu / n * 1e6,
        "throughput": n / wall,
        "new_conns": (after - before - 1) / n,  # minus the stats connection itself
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


# -- orchestration -------------------------------------------------------------------------


def start_server(tmp: Path, tls: bool) -> tuple[subprocess.Popen[bytes], str, str | None]:
    port_file = tmp / ("port-tls" if tls else "port")
    args = [sys.executable, __file__, "--serve", str(port_file)]
    cafile = None
    if tls:
        cafile, keyfile = make_certificate(tmp)
        args += ["--cert", cafile, "--key", keyfile]
    proc = subprocess.Popen(args)
    for _ in range(200):
        if port_file.exists() and port_file.read_text():
            break
        time.sleep(0.05)
    else:
        proc.terminate()
        raise RuntimeError("benchmark server did not start")
    scheme = "https" if tls else "http"
    return proc, f"{scheme}://127.0.0.1:{port_file.read_text()}", cafile


def scenario(
    kind: str, base: str, cafile: str | None, conc: int, n: int, warmup: int, provider: str
) -> dict[str, Any]:
    env = dict(os.environ)
    if cafile:
        env["SSL_CERT_FILE"] = cafile  # httpx trusts it (trust_env); both clients alike
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--provider",
            provider,
            "--client",
            kind,
            base,
            str(conc),
            str(n),
            str(warmup),
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", metavar="PORT_FILE")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--client", nargs=5, metavar=("KIND", "URL", "CONC", "N", "WARMUP"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true")
    parser.add_argument(
        "--sync",
        action="store_true",
        help="the blocking twins instead: the engine's httpx.Client path and its urllib3 "
        "path (engine-fast-sync) against a bare pooled httpx.Client, from 1 and from 16 "
        "threads (no --check target)",
    )
    parser.add_argument(
        "--provider",
        choices=("bing", "brave"),
        default="bing",
        help="engine rows: BingTextSearch (default) or BraveTextSearch; the aiohttp and "
        "httpx floor rows send the same GET and read the same fields",
    )
    args = parser.parse_args()

    if args.serve:
        serve(args.serve, args.cert, args.key)
        return 0
    if args.client:
        kind, base, conc, n, warmup = args.client
        if kind.endswith("-sync"):
            result = run_sync_client(kind, base, int(conc), int(n), int(warmup), args.provider)
        else:
            result = asyncio.run(
                run_client(kind, base, int(conc), int(n), int(warmup), args.provider)
            )
        print(json.dumps(result))
        return 0

    n = 500 if args.quick else 2000
    warmup = 200
    kinds: tuple[str, ...] = ("aiohttp", "httpx", "engine", "engine-fast")
    levels = (1, 50)
    if args.sync:
        # The floor is the bare httpx.Client the engine uses; the alternatives a blocking
        # engine could use instead are measured when installed.
        kinds, levels = ("httpx-sync", "engine-sync"), (1, 16)
        for module, kind in (("httpx2", "httpx2-sync"), ("urllib3", "urllib3-sync")):
            if importlib.util.find_spec(module) is not None:
                kinds += (kind,)
        if importlib.util.find_spec("urllib3") is not None:
            kinds += ("engine-fast-sync",)  # the connector with transport="urllib3"
    floor_kind = kinds[0]
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for tls in (False, True):
            proc, base, cafile = start_server(tmp, tls)
            try:
                for conc in levels:
                    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
                    for _ in range(args.repeat):  # interleaved, so drift hits all alike
                        for kind in kinds:
                            runs[kind].append(
                                scenario(kind, base, cafile, conc, n, warmup, args.provider)
                            )
                    med = {
                        kind: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                        for kind, rs in runs.items()
                    }
                    floor = med[floor_kind]
                    if args.sync:
                        ok = all(
                            med[k]["new_conns"] < 0.01
                            for k in ("engine-sync", "engine-fast-sync")
                            if k in med
                        )
                    else:
                        fast = med["engine-fast"]
                        ok = (
                            fast["cpu_us"] <= 1.5 * floor["cpu_us"]
                            and fast["new_conns"] < 0.01
                            and med["engine"]["new_conns"] < 0.01
                        )
                    failed |= not ok
                    scheme = "https" if tls else "http"
                    rows.append((scheme, conc, med, ok))
            finally:
                proc.terminate()  # by pid
                proc.wait(10)

    print(
        f"provider: {args.provider}; nproc: {os.cpu_count()}; "
        f"{n} searches per run after {warmup} warm-up; "
        f"median of {args.repeat} runs; Python {sys.version.split()[0]}"
    )
    print()
    print(
        "| scheme | conc. | client | CPU µs/search | searches/s | new conns/search "
        "| peak RSS MB | CPU / floor | throughput / floor | target (fast ≤ 1.5x) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for scheme, conc, med, ok in rows:
        floor = med[floor_kind]
        for kind in kinds:
            m = med[kind]
            verdict = ("met" if ok else "MISSED") if kind == "engine-fast" else ""
            print(
                f"| {scheme} | {conc} | {kind} | {m['cpu_us']:.0f} | {m['throughput']:.0f} "
                f"| {m['new_conns']:.4f} | {m['peak_rss_mb']:.1f} "
                f"| {m['cpu_us'] / floor['cpu_us']:.2f}x "
                f"| {m['throughput'] / floor['throughput']:.2f}x | {verdict} |"
            )
    return 1 if (args.check and failed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
