"""The access tokens of `qrelkit serve`: one per assessor, shown once, kept as its sha256. A
browser that presents a live token judges under that token's assessor name and in its role
(`models.Role`), both from the store, never from the browser."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import StoreBusy, UsageError
from ..models import ROLES, Role
from ..storage import Store

TOKEN_BYTES = 32
"""Random bytes in a token (`secrets.token_urlsafe`: 43 characters)."""
MAX_TOKEN_CHARS = 128
"""Anything longer is not one of ours and is refused before hashing."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
NAME_HINT = "an assessor name is 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit"


MAX_SESSIONS_PER_TOKEN = 3
"""Sessions (browser tabs, each a `qrelkit judge` process of about 70 MB) open at once on one token."""
MAX_SESSIONS = 32
"""Sessions open at once on one server, all tokens together."""
MAX_COLUMNS, MAX_ROWS = 500, 200
"""The largest terminal a browser gets: it names the size, and the app's memory and what it sends
grow with it (20000 x 20000 took 2.6 GB and sent 1.2 GB in 25 s)."""


@dataclass(frozen=True)
class Limits:
    """What a running server lets its browsers take: sessions per token and in all, and the size of
    a session's terminal."""

    per_token: int = MAX_SESSIONS_PER_TOKEN
    total: int = MAX_SESSIONS
    columns: int = MAX_COLUMNS
    rows: int = MAX_ROWS


def terminal_size(limits: Limits, width: int, height: int) -> tuple[int, int]:
    """The terminal size a browser asked for, within 1 x 1 and the limits."""
    return min(max(width, 1), limits.columns), min(max(height, 1), limits.rows)


def refusal(limits: Limits, open_on_token: int, open_in_all: int) -> str | None:
    """Why one more session may not start, with `open_on_token` sessions open on its token and
    `open_in_all` on the server (in the browser's words), or None: it may."""
    if open_on_token >= limits.per_token:
        return (
            f"{sessions_are(open_on_token)} open under this token already, the most this server allows "
            "(--max-sessions-per-token): close one of them"
        )
    if open_in_all >= limits.total:
        said = f"{sessions_are(open_in_all)} open on this server, the most it allows (--max-sessions)"
        return f"{said}: wait for one to end"
    return None


def sessions_are(count: int) -> str:
    return "1 session is" if count == 1 else f"{count} sessions are"


@dataclass(frozen=True)
class TokenEntry:
    """One token as `token list` shows it: never the token or its hash."""

    name: str
    role: Role
    created: str
    last_used: str | None
    revoked: str | None


@dataclass(frozen=True)
class Access:
    """Who a valid token lets in: the token's id (to end its sessions when it is revoked), the
    assessor name its sessions judge under, and what they may do (`role`)."""

    token_id: int
    assessor: str
    role: Role = "assessor"


def role_of(stored: str) -> Role:
    """A role as the store holds it; anything but `adjudicator` judges only."""
    return "adjudicator" if stored == "adjudicator" else "assessor"


def digest(token: str) -> str:
    """The sha256 (hex) of a token: what the store keeps."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise UsageError(f"{name!r} is not an assessor name", NAME_HINT)
    return name


def add_token(store: Store, name: str, role: Role = "assessor") -> str:
    """A new token for assessor `name` in `role` (refused while they hold one): the token, to show
    once. Only an `adjudicator` token's sessions may open the adjudication screen."""
    check_name(name)
    if role not in ROLES:
        raise UsageError(f"{role!r} is not a role", f"a role is one of {', '.join(ROLES)}")
    if store.tokens.active(name) is not None:
        raise UsageError(
            f"{name} already has a token", f"revoke it first: `qrelkit serve token revoke {name}`, then add again"
        )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    store.tokens.add(name, digest(token), role)
    return token


def list_tokens(store: Store) -> list[TokenEntry]:
    """Every token, oldest first: name, role, created, last used, revoked."""
    return [TokenEntry(n, role_of(role), c, u, r) for n, role, c, u, r in store.tokens.rows()]


def revoke_token(store: Store, name: str) -> int:
    """Revoke `name`'s token (their open browser sessions end within seconds); how many."""
    check_name(name)
    revoked = store.tokens.revoke(name)
    if not revoked:
        raise UsageError(f"{name} has no token to revoke", "see `qrelkit serve token list`")
    return revoked


def authenticate(store: Store, token: str | None, *, touch: bool = True) -> Access | None:
    """Who `token` lets in, or None (no token, a malformed, unknown or revoked one). `touch`
    records the use (skipped, not waited for, while another process holds the write lock)."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    found = store.tokens.owner(digest(token))
    if found is None:
        return None
    if touch:
        try:
            store.tokens.touch(found[0])
        except StoreBusy:
            pass
    return Access(token_id=found[0], assessor=found[1], role=role_of(found[2]))


def live_tokens(store: Store) -> set[int]:
    """The ids of the tokens not revoked (the server ends the sessions of any other)."""
    return store.tokens.live_ids()


DIRECT = (None, "none", "same-origin")
"""The `Sec-Fetch-Site` of a request a person opened: pasted into the address bar or a bookmark
(`none`), from the server's own page, or a client that sends none."""


def opened_directly(public: str, fetch_site: str | None, referer: str | None) -> bool:
    """Whether a token link was opened by hand, not followed from another site: a cross-site link
    to `/?token=MINE` would sign the victim in under MINE's assessor (session fixation)."""
    return fetch_site in DIRECT and (not referer or same_origin(referer, public))


def same_origin(url: str, public: str) -> bool:
    """Whether `url` (an Origin or Referer a browser sent) is of the origin of the public address."""
    mine = origin(url)
    return mine is not None and mine == origin(public)


def origin(url: str) -> tuple[str, str, int] | None:
    """An http(s) address's scheme, host and port (the default port filled in), or None."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def public_url(host: str, port: int, given: str | None = None) -> str:
    """The address browsers reach the server at: `given` (behind a proxy), else http://HOST:PORT."""
    if given is None:
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"
    parts = urlsplit(given)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise UsageError(
            f"--public-url {given!r} is not an http(s) address",
            "give the address browsers open, e.g. https://judge.example.org",
        )
    return given.rstrip("/")
