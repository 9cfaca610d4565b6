"""fetch_pages: event-loop stalls while pages are converted, and the cost of each extractor.

Serves generated HTML pages from 127.0.0.1 (no internet) and measures:

* the longest stall of the event loop (a 10 ms ticker runs beside ``fetch_pages``) while a
  page of N MB is downloaded, converted and cut to 1,000 characters;
* the time trafilatura and the built-in converter take on pages of growing size;
* how much page chrome (menus, sidebars, cookie banners, footers) each keeps on an
  article-shaped page.

    python benchmarks/bench_fetch.py
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import threading
import time

from textsearch import TextSearchResult
from textsearch._html import html_to_text
from textsearch.grounding import fetch_pages
from textsearch.grounding._extract import extract_main_text


def dense_page(paragraphs: int) -> bytes:
    body = "".join(f"<p>Paragraph {i} about retries and backoff.</p>" for i in range(paragraphs))
    return f"<html><head><title>Big</title></head><body><main>{body}</main></body></html>".encode()


CHROME = ("Unrelated popular post", "We use cookies", "Privacy policy", "About us")


def article_page() -> bytes:
    side = "".join(f"<li><a href='/p{i}'>Unrelated popular post {i}</a></li>" for i in range(12))
    text = "".join(
        f"<p>Paragraph {i}: when a call fails with a transient error, wait before retrying, and "
        "double the wait after each failure so that a struggling service can recover.</p>"
        for i in range(6)
    )
    return (
        "<html><head><title>Retry with backoff</title></head><body>"
        "<header><ul><li>Home</li><li>Blog</li><li>About us</li></ul></header>"
        f"<div class='sidebar'><ul>{side}</ul></div><div class='content'><h1>Retry</h1>{text}</div>"
        "<div class='cookie'>We use cookies to improve your experience.</div>"
        "<div class='footer'>Copyright Example Corp. Privacy policy.</div></body></html>"
    ).encode()


def serve_once(page: bytes) -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)

    def run() -> None:
        conn, _ = sock.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
                + f"Content-Length: {len(page)}\r\n\r\n".encode()
                + page
            )
        sock.close()

    threading.Thread(target=run, daemon=True).start()
    return int(sock.getsockname()[1])


async def stall(page: bytes) -> tuple[float, float]:
    port = serve_once(page)
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    started = time.monotonic()
    await fetch_pages(
        [TextSearchResult("p", "s", f"http://127.0.0.1:{port}/")],
        allow_private=True,
        timeout=120,
        max_chars=1_000,
        max_bytes=10_000_000,
    )
    total = time.monotonic() - started
    done.set()
    await task
    return total, max(gaps)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,20000,50000", help="paragraph counts")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| page | fetch + convert + cut | longest event-loop stall |")
    print("|---|---|---|")
    for n in sizes:
        page = dense_page(n)
        total, gap = asyncio.run(stall(page))
        print(f"| {len(page) / 1e6:.2f} MB | {total:.2f} s | {gap * 1000:.0f} ms |")
    print()
    print("| page | trafilatura | built-in |")
    print("|---|---|---|")
    for n in sizes[:2]:
        html = dense_page(n).decode()
        t0 = time.perf_counter()
        extract_main_text(html, "trafilatura")
        t1 = time.perf_counter()
        html_to_text(html)
        t2 = time.perf_counter()
        print(f"| {len(html) / 1e6:.2f} MB | {t1 - t0:.2f} s | {t2 - t1:.2f} s |")
    print()
    html = article_page().decode()
    for name in ("trafilatura", "builtin"):
        _, text = extract_main_text(html, name)  # type: ignore[arg-type]
        kept = [c for c in CHROME if c in text]
        print(f"{name}: {len(text)} characters, chrome kept: {kept or 'none'}")


if __name__ == "__main__":
    main()
