"""serve: the judging UI in browsers, one access token per assessor (`serve token add|list|revoke`)."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.table import Table

from ..errors import UsageError
from ..models import ROLES, Role
from ..render import text
from ..render.styles import data
from ..workflows import serving
from ._common import emit, open_store, say


@click.group(invoke_without_command=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True, help="The port.")
@click.option(
    "--public-url",
    help="The address browsers open, e.g. https://judge.example.org behind a TLS proxy [default: http://HOST:PORT].",
)
@click.option(
    "--max-sessions-per-token",
    "per_token",
    type=click.IntRange(min=1),
    default=serving.MAX_SESSIONS_PER_TOKEN,
    show_default=True,
    help="Sessions open at once on one token (browser tabs; each is a `qrelkit judge` process).",
)
@click.option(
    "--max-sessions",
    "total",
    type=click.IntRange(min=1),
    default=serving.MAX_SESSIONS,
    show_default=True,
    help="Sessions open at once on the server, all tokens together.",
)
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, public_url: str | None, per_token: int, total: int) -> None:
    """Serve the judging UI (`qrelkit judge`) to browsers: each assessor opens the link of their own
    token (`qrelkit serve token add NAME`) and judges under that name. A connection over a session
    cap is refused (429) and starts nothing."""
    url = serving.public_url(host, port, public_url)
    if ctx.invoked_subcommand is not None:
        ctx.obj["public_url"] = url
        return
    from ._server import JudgingServer  # aiohttp loads only to serve

    db: Path = ctx.find_root().obj["db"]
    limits = serving.Limits(per_token=per_token, total=total)
    server = JudgingServer(db, host=host, port=port, public_url=url, limits=limits)
    try:
        server.store.open()  # refuses a path that holds no store before listening
        server.serve()
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)  # asyncio's strerror repeats the address
        raise UsageError(f"cannot listen on {host}:{port}: {why}", "pick another --port") from None
    finally:
        server.store.close()


@serve.group()
def token() -> None:
    """Access tokens: one per assessor, shown once, stored hashed."""


@token.command("add")
@click.argument("name")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="assessor",
    show_default=True,
    help="assessor: judges. adjudicator: also settles and clears disagreements (the adjudication screen, `A`).",
)
@click.pass_context
def add(ctx: click.Context, name: str, role: Role) -> None:
    """A token for assessor NAME: printed once with its link (anyone with the link judges as NAME)."""
    secret = serving.add_token(open_store(ctx), name, role)
    say(f"{role} token for ", data(name), " (shown once, the store keeps only its sha256):")
    click.echo(secret)
    say("link: ", data(f"{ctx.find_root().obj['public_url']}/?token={secret}"))


@token.command("list")
@click.pass_context
def list_(ctx: click.Context) -> None:
    """Every token: assessor, role, created, last used, revoked (never the token)."""
    entries = serving.list_tokens(open_store(ctx))
    heads = ("assessor", "role", "created", "last used", "revoked")
    table = Table(*heads, title=f"{len(entries)} tokens", show_edge=False, pad_edge=False)  # 80 columns wide
    for e in entries:
        when = (data(stamp(e.created)), data(stamp(e.last_used)), data(stamp(e.revoked)))
        table.add_row(data(e.name), e.role, *when)
    emit(lambda width, color: text(table, width=width, color=color), None)


@token.command("revoke")
@click.argument("name")
@click.pass_context
def revoke(ctx: click.Context, name: str) -> None:
    """Revoke NAME's token: new connections get 401 and open sessions end within seconds."""
    serving.revoke_token(open_store(ctx), name)
    say("revoked the token of ", data(name), "; a running `qrelkit serve` ends its sessions within 2 s")


def stamp(value: str | None) -> str:
    """A stored time to the minute (UTC), or `-`."""
    return "-" if value is None else value[:16].replace("T", " ")


COMMANDS = [serve]
