"""``anatid-mcp --transport http`` on 127.0.0.1: the tools, the token, the bind address."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from anatid_mcp import READ_TOOLS, WRITE_TOOLS

from .conftest import http_server
from .tour import call_every_tool

TOKEN = "s3cret-token-for-tests"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp*)."""
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, hexport = local.split(":")
            if state != "0A" or int(hexport, 16) != port:  # 0A = LISTEN
                continue
            raw = bytes.fromhex(addr)
            if family == socket.AF_INET:
                found.add(socket.inet_ntop(family, raw[::-1]))
            else:  # four little-endian 32-bit words
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                found.add(socket.inet_ntop(family, words))
    return found


async def test_every_tool_over_http_with_the_token(memory_path):
    with http_server(memory_path, "--token", TOKEN) as server:
        async with server.session(TOKEN) as s:
            names = {t.name for t in (await s.list_tools()).tools}
            assert names == set(READ_TOOLS) | set(WRITE_TOOLS)
            assert await call_every_tool(s) == names


def test_http_refuses_requests_without_the_right_token(memory_path):
    with http_server(memory_path, "--token", TOKEN) as server:
        with httpx.Client(timeout=30) as http:
            missing = http.post(server.url, json=INIT, headers=HEADERS)
            wrong = http.post(
                server.url, json=INIT, headers={**HEADERS, "Authorization": "Bearer not-the-token"}
            )
            right = http.post(
                server.url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"}
            )
            root = http.get(server.url.rsplit("/", 1)[0] + "/")
            health = http.get(server.url.rsplit("/", 1)[0] + "/health")
    assert missing.status_code == 401 and wrong.status_code == 401
    assert "bearer token" in missing.json()["error"]
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert right.status_code == 200
    assert root.status_code == 401  # every path, not only /mcp
    assert health.status_code == 200 and health.json()["status"] == "healthy"  # and no more


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc/net/tcp")
def test_http_binds_loopback_by_default_even_with_graphitis_config(memory_path, tmp_path):
    # Graphiti's own config.yaml says host 0.0.0.0: reusing it must not open the memory up.
    config = tmp_path / "config.yaml"
    config.write_text("server:\n  transport: http\n  host: 0.0.0.0\n  port: 1\n")
    with http_server(memory_path, "--config", str(config)) as server:
        assert listening_addresses(server.port) == {"127.0.0.1"}
        assert "ignoring server.host '0.0.0.0'" in server.output()
