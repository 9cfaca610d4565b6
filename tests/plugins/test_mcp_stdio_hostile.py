"""The MCP server over stdio, fed what a broken or hostile client sends (issue #24).

Malformed JSON, wrong JSON-RPC shapes, wrong-typed and huge arguments: each gets an error
answer (or is dropped, for a line that is not JSON-RPC at all), the server keeps serving,
and nothing reaches stderr as a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.plugins._support import REPO_ROOT


class _Server:
    def __init__(self, folder: Path, tmp_path: Path) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "PYTHONUNBUFFERED": "1",
        }
        self.stderr_path = tmp_path / "stderr.txt"
        self._stderr = open(self.stderr_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "textsearch", "mcp", "--path", str(folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=str(tmp_path),
        )
        self._next = 100

    def send_raw(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None, *, raw_id: Any = None) -> dict[str, Any]:
        self._next += 1
        ident = self._next if raw_id is None else raw_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send_raw(json.dumps(message).encode())
        return self.read(ident)

    def read(self, ident: Any, timeout: float = 60.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"server closed its output (exit {self.proc.poll()})")
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == ident:
                return answer
        raise AssertionError(f"no answer to {ident!r}")

    def close(self) -> str:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()
        return self.stderr_path.read_text(encoding="utf-8")


def test_stdio_server_survives_malformed_and_hostile_messages(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "retry.md").write_text("# Retry policy\n\nUse exponential backoff.\n", "utf-8")
    server = _Server(folder, tmp_path)
    try:
        init = server.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "0"},
            },
        )
        assert "result" in init, init
        server.send_raw(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        )

        # not JSON at all, truncated JSON, JSON that is not an object, binary garbage
        for junk in (
            b"{not json",
            b'{"jsonrpc": "2.0", "id": 1, "meth',
            b"[1, 2, 3]",
            b"\xff\xfe\x00",
        ):
            server.send_raw(junk)

        def call(arguments: Any, name: str = "search") -> dict[str, Any]:
            return server.request("tools/call", {"name": name, "arguments": arguments})

        def tool_error_text(answer: dict[str, Any]) -> str:
            if "error" in answer:
                return str(answer["error"].get("message", ""))
            result = answer["result"]
            assert result.get("isError") is True, result
            return " ".join(b.get("text", "") for b in result["content"])

        # wrong types and shapes: an error the model can act on, not a crash
        assert "query" in tool_error_text(call({"query": 42}))
        assert tool_error_text(call({"query": "x", "top": "many"}))
        clamped = call({"query": "x", "top": 10**30})  # bounded: clamped, and the model told
        assert "outside the maximum" in json.dumps(clamped["result"])
        assert tool_error_text(call({"query": ["a", "b"]}))
        assert tool_error_text(call("not an object"))
        assert tool_error_text(call({"query": "x"}, name="no_such_tool"))
        assert "error" in server.request("no/such/method")
        assert "error" in server.request("tools/call", {"arguments": {"query": "x"}})
        # a huge query (4 MB) is refused or searched, within the time limit
        big = call({"query": "backoff " * 500_000})
        assert "result" in big or "error" in big
        # ids of odd types are echoed back as given
        odd = server.request("tools/list", raw_id="an-id-\u00e9")
        assert odd["result"]["tools"]

        # and it still serves a normal request
        fine = call({"query": "exponential backoff"})
        assert fine["result"].get("isError") is False
        assert "Retry policy" in fine["result"]["content"][0]["text"]
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr, stderr[-3000:]
