"""``anatid-mcp``: Graphiti's MCP memory server on one embedded anatid file.

::

    anatid-mcp                                   # stdio, memory in the user's data directory
    anatid-mcp --path ~/notes/memory.duckdb --group-id work
    anatid-mcp --transport http --port 8000 --token "$(openssl rand -hex 16)"
    anatid-mcp --read-only --path shared.anatid  # only the read tools; the file opened read-only

Configuration as in Graphiti's MCP server: ``--config config.yaml`` (same keys), the same
environment variables (``OPENAI_API_KEY``, ``MODEL_NAME`` ...), and the same provider flags.

``--help`` and a bad option are answered on the standard library alone: Graphiti, the MCP SDK,
the model clients and the store are imported once the arguments are read (issue 44).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

from . import __version__
from .defaults import MAX_BODY_CHARS, default_path

log = logging.getLogger("anatid_mcp")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="anatid-mcp",
        description="Graphiti's MCP memory server on one embedded anatid file, with time travel.",
    )
    p.add_argument(
        "--path", help=f"the memory file (default: $ANATID_MCP_PATH or {default_path()})"
    )
    p.add_argument(
        "--read-only",
        action="store_true",
        help="open the file read-only and register only the read tools",
    )
    p.add_argument(
        "--keep-deleted",
        action="store_true",
        help="audit mode: deletes keep the deleted data in history (get_history, as_of) "
        "instead of erasing it from the file",
    )
    p.add_argument(
        "--config", help="YAML file with Graphiti MCP server keys (default: $CONFIG_PATH)"
    )
    p.add_argument(
        "--transport", choices=["stdio", "http"], help="stdio (default) or streamable HTTP"
    )
    p.add_argument("--host", help="HTTP address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="HTTP port (default 8000)")
    p.add_argument(
        "--token",
        default=os.environ.get("ANATID_MCP_TOKEN"),
        help="HTTP bearer token required on every request (default: $ANATID_MCP_TOKEN)",
    )
    p.add_argument("--group-id", help="the default group (graph partition); default 'main'")
    p.add_argument(
        "--llm-provider", choices=["openai", "azure_openai", "anthropic", "gemini", "groq"]
    )
    p.add_argument("--embedder-provider", choices=["openai", "azure_openai", "gemini", "voyage"])
    p.add_argument("--model", help="LLM model name")
    p.add_argument("--temperature", type=float, help="LLM temperature")
    p.add_argument("--embedder-model", help="embedding model name")
    p.add_argument("--user-id", help="kept for Graphiti server compatibility (unused)")
    p.add_argument(
        "--max-body",
        type=int,
        default=MAX_BODY_CHARS,
        help=f"largest episode_body accepted, in characters (default {MAX_BODY_CHARS:,})",
    )
    p.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    p.add_argument("--version", action="version", version=f"anatid-mcp {__version__}")
    return p


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The command line as a configuration layer (only what was given)."""
    pairs = {
        ("server", "transport"): args.transport,
        ("server", "port"): args.port,
        ("llm", "provider"): args.llm_provider,
        ("llm", "model"): args.model,
        ("llm", "temperature"): args.temperature,
        ("embedder", "provider"): args.embedder_provider,
        ("embedder", "model"): args.embedder_model,
        ("graphiti", "group_id"): args.group_id,
        ("graphiti", "user_id"): args.user_id,
    }
    out: dict[str, Any] = {}
    for (section, key), value in pairs.items():
        if value is not None:
            out.setdefault(section, {})[key] = value
    return out


def semaphore_limit() -> int:
    from .config import ConfigError

    raw = os.environ.get("SEMAPHORE_LIMIT", "10")
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"SEMAPHORE_LIMIT must be a whole number >= 1, got {raw!r}")
    return int(raw)


def bind_host(args: argparse.Namespace, configured: str) -> str:
    """``--host`` if given; a configured host only if it is loopback. Graphiti's own config.yaml
    says 0.0.0.0, and reusing it must not open the memory to the network unasked."""
    from .server import is_loopback

    if args.host:
        return args.host
    if not is_loopback(configured):
        log.warning(
            "ignoring server.host %r from the configuration: pass --host %s to listen "
            "beyond this machine",
            configured,
            configured,
        )
        return "127.0.0.1"
    return configured


async def run(args: argparse.Namespace) -> None:
    from .config import load
    from .memory import Memory, Options
    from .server import build, serve_http, serve_stdio

    config = load(args.config, overrides=overrides(args))
    options = Options(
        path=args.path or default_path(),
        read_only=args.read_only,
        keep_deleted=args.keep_deleted,
        max_body=args.max_body,
        concurrency=semaphore_limit(),
    )
    memory = await Memory.open(config, options)
    notice = memory.clients.startup_notice(read_only=options.read_only)
    if notice:  # stderr: on stdio, stdout is the protocol
        log.warning("anatid-mcp: %s", notice)
    drain = True
    try:
        if config.server.transport == "http":
            host = bind_host(args, config.server.host)
            mcp = build(memory, host=host, port=config.server.port)
            await serve_http(mcp, host=host, port=config.server.port, token=args.token)
            drain = False  # uvicorn returns on SIGTERM/SIGINT only: stop now, as on stdio
        else:
            await serve_stdio(build(memory))
    except asyncio.CancelledError:
        drain = False  # SIGTERM: stop now; unprocessed episodes are reported next time
    finally:
        await memory.close(drain=drain)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # stdout is the protocol on stdio: every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level.upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    # An embedded, local memory does not report usage to Graphiti's telemetry unless asked to.
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    if args.max_body < 1:
        print("anatid-mcp: --max-body must be at least 1", file=sys.stderr)
        return 2
    from anatid_core import AnatidError

    from .config import ConfigError

    try:
        asyncio.run(run(args))
    except (ConfigError, OSError, AnatidError) as exc:
        print(f"anatid-mcp: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
