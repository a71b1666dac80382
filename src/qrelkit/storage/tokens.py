"""Access tokens of `qrelkit serve`: who may open a judging session in a browser, and under which
assessor's name. Only the sha256 of a token is stored; the token itself is shown once."""

from __future__ import annotations

from .base import Part, now


class Tokens(Part):
    """Per-assessor access tokens (hashed), newest last; a revoked token keeps its row."""

    def add(self, name: str, digest: str) -> None:
        """A new token for assessor `name`, by the sha256 `digest` of its text."""
        with self.db.transaction():
            self.conn.execute("INSERT INTO tokens(name, digest, created) VALUES (?, ?, ?)", [name, digest, now()])

    def active(self, name: str) -> int | None:
        """The id of `name`'s token that is not revoked, or None."""
        found = self._scalar("SELECT id FROM tokens WHERE name = ? AND revoked IS NULL", [name])
        return None if found is None else int(found)

    def owner(self, digest: str) -> tuple[int, str] | None:
        """(id, assessor) of the unrevoked token with this digest, or None."""
        row = self.conn.execute("SELECT id, name FROM tokens WHERE digest = ? AND revoked IS NULL", [digest]).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def touch(self, token_id: int) -> None:
        """Token `token_id` opened a page or a session now."""
        with self.db.transaction():
            self.conn.execute("UPDATE tokens SET last_used = ? WHERE id = ?", [now(), token_id])

    def revoke(self, name: str) -> int:
        """Revoke `name`'s tokens; how many were still valid."""
        with self.db.transaction():
            cur = self.conn.execute("UPDATE tokens SET revoked = ? WHERE name = ? AND revoked IS NULL", [now(), name])
            return int(cur.rowcount)

    def live_ids(self) -> set[int]:
        """The ids of every token that is not revoked."""
        return {int(r[0]) for r in self.conn.execute("SELECT id FROM tokens WHERE revoked IS NULL")}

    def rows(self) -> list[tuple[str, str, str | None, str | None]]:
        """(name, created, last used, revoked) of every token, oldest first: never the digest."""
        rows = self.conn.execute("SELECT name, created, last_used, revoked FROM tokens ORDER BY id").fetchall()
        return [(str(r[0]), str(r[1]), r[2], r[3]) for r in rows]
