"""Access tokens of `qrelkit serve`: who may open a judging session in a browser, under which
assessor's name, and in which role (`models.Role`). Only the sha256 of a token is stored; the
token itself is shown once."""

from __future__ import annotations

from ..models import Role
from .base import Part, now


class Tokens(Part):
    """Per-assessor access tokens (hashed), newest last; a revoked token keeps its row."""

    def add(self, name: str, digest: str, role: Role = "assessor") -> None:
        """A new token for assessor `name`, by the sha256 `digest` of its text, in `role`."""
        with self.db.transaction():
            self.conn.execute(
                "INSERT INTO tokens(name, digest, created, role) VALUES (?, ?, ?, ?)", [name, digest, now(), role]
            )

    def active(self, name: str) -> int | None:
        """The id of `name`'s token that is not revoked, or None."""
        found = self._scalar("SELECT id FROM tokens WHERE name = ? AND revoked IS NULL", [name])
        return None if found is None else int(found)

    def owner(self, digest: str) -> tuple[int, str, str] | None:
        """(id, assessor, role) of the unrevoked token with this digest, or None."""
        sql = "SELECT id, name, role FROM tokens WHERE digest = ? AND revoked IS NULL"
        row = self.conn.execute(sql, [digest]).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), str(row[2]))

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

    def rows(self) -> list[tuple[str, str, str, str | None, str | None]]:
        """(name, role, created, last used, revoked) of every token, oldest first: never the digest."""
        rows = self.conn.execute("SELECT name, role, created, last_used, revoked FROM tokens ORDER BY id").fetchall()
        return [(str(r[0]), str(r[1]), str(r[2]), r[3], r[4]) for r in rows]
