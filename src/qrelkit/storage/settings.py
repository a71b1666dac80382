"""Golden-set settings: name, grade scale, label policy, strata and their weights, scoring profiles."""

from __future__ import annotations

import json

from ..errors import StoreError
from ..models import GoldenSetInfo, GradeScale, LabelPolicy, ScoringProfile, Stratum
from ..resolution import POLICIES
from .base import Part


class Settings(Part):
    """The store's settings (one row each in `meta`, plus the `strata` and `profiles` tables).
    The name, scale and label policy are cached on the connection (`base.Connection.settings`)."""

    @property
    def name(self) -> str:
        return self.db.settings().name

    @property
    def scale(self) -> GradeScale:
        return self.db.settings().scale

    @property
    def label_policy(self) -> LabelPolicy:
        """How disagreeing assessors resolve without adjudication: `median` or `latest`."""
        return self.db.settings().label_policy

    def configure(
        self, *, name: str | None = None, scale: GradeScale | None = None, label_policy: LabelPolicy | None = None
    ) -> None:
        with self.db.transaction():
            if label_policy is not None:
                if label_policy not in POLICIES:
                    raise StoreError(f"unknown label policy {label_policy!r}", f"use one of {', '.join(POLICIES)}")
                self.db.set_meta("label_policy", label_policy)
            if name is not None:
                self.db.set_meta("name", name)
            if scale is not None:
                top = self._scalar("SELECT max(grade) FROM judgments WHERE state = 'graded'")
                if top is not None and top > scale.max_grade:
                    raise StoreError(
                        f"the store already holds grade {top}, above the new scale's {scale.max_grade}",
                        "choose a scale that covers the existing grades",
                    )
                self.db.set_meta("scale", scale.model_dump_json())

    def strata(self) -> list[Stratum]:
        return [Stratum(name=r["name"], weight=r["weight"]) for r in self._rows("SELECT * FROM strata ORDER BY name")]

    def check_stratum(self, name: str | None) -> None:
        """Refuse a stratum name that neither has a weight nor holds a query (None passes)."""
        if name is None:
            return
        known = {r[0] for r in self.conn.execute("SELECT name FROM strata UNION SELECT stratum FROM queries")}
        if name not in known:
            raise StoreError(f"unknown stratum {name!r}", "see `qrelkit strata list`")

    def set_stratum(self, stratum: Stratum) -> None:
        with self.db.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO strata(name, weight) VALUES (?, ?)", [stratum.name, stratum.weight]
            )

    def profiles(self) -> list[ScoringProfile]:
        return [
            ScoringProfile(
                name=r["name"],
                metrics=json.loads(r["metrics"]),
                strata=json.loads(r["strata"]) if r["strata"] else None,
            )
            for r in self._rows("SELECT * FROM profiles ORDER BY name")
        ]

    def set_profile(self, profile: ScoringProfile) -> None:
        with self.db.transaction():
            self._put_profile(profile)

    def _put_profile(self, profile: ScoringProfile) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO profiles(name, metrics, strata) VALUES (?, ?, ?)",
            [
                profile.name,
                json.dumps(profile.metrics),
                json.dumps(profile.strata) if profile.strata is not None else None,
            ],
        )

    def info(self) -> GoldenSetInfo:
        s = self.db.settings()
        return GoldenSetInfo(
            name=s.name, scale=s.scale, strata=self.strata(), profiles=self.profiles(), label_policy=s.label_policy
        )

    def apply_info(self, info: GoldenSetInfo) -> None:
        """Take every setting from `info` (loading a frozen version), inside the caller's transaction."""
        with self.db.transaction():
            self.db.set_meta("name", info.name)
            self.db.set_meta("scale", info.scale.model_dump_json())
            self.db.set_meta("label_policy", info.label_policy)
            for stratum in info.strata:
                self.conn.execute(
                    "INSERT OR REPLACE INTO strata(name, weight) VALUES (?, ?)", [stratum.name, stratum.weight]
                )
            for profile in info.profiles:
                self._put_profile(profile)

    def query_strata(self) -> dict[str, str]:
        """Query id -> stratum, for every query."""
        return dict(self.conn.execute("SELECT id, stratum FROM queries").fetchall())

    def weights(self) -> dict[str, float]:
        """Stratum -> traffic weight, for every stratum with a weight."""
        return {s.name: s.weight for s in self.strata()}
