"""What a score is computed against (the store, a frozen version or a qrels file), and which
measures, queries and traffic weights a scoring uses (from --metrics, or a scoring profile)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..formats import as_text
from ..formats.paths import display
from ..models.plain import PlainFileFingerprint, PlainGoldenFingerprint
from ..models.vocabulary import DEFAULT_STRATUM, GRADE_TOP
from ..scoring.measures import DEFAULT_METRICS, refuse_above_scale
from ..scoring.names import canonical_names, parse_measures, reference_names

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..formats.columns import Columns
    from ..models import GoldenSetInfo, GradeScale
    from ..storage import Store
    from .label_sets import LabelChoice


@dataclass(frozen=True)
class SourceScale:
    """The grades a score takes: 0..`max_grade`, relevant from `relevance_threshold`."""

    max_grade: int
    relevance_threshold: int


@dataclass(frozen=True)
class ScoringSource:
    """Labels to score against, the queries to evaluate and their strata, and the identity that
    goes into every report's fingerprint."""

    labels: Columns
    labels_hash: npt.NDArray[np.uint64] | None
    """The fast parser's document hashes, when the labels came from it (else computed)."""
    queries: list[str] | None
    """The evaluated queries; None: the queries of a qrels file, in file order."""
    strata: dict[str, str]
    scale: SourceScale
    info: GoldenSetInfo | None
    """The golden set's settings (its profiles, strata and named grades); None for a qrels file,
    which has none (so scoring one builds no model: `score --qrels` imports no pydantic)."""
    golden: PlainGoldenFingerprint | None
    qrels: PlainFileFingerprint | None
    scale_of: str | None = None
    """Whose scale `scale` is (`pydocs`, `pydocs 1.0`, `--max-grade 3`), when there is one: a
    measure's `rel` above its top is refused. None for a qrels file read without --max-grade,
    which has no scale (`rel` may then be any grade, as trec_eval -l)."""

    @classmethod
    def from_store(cls, store: Store, version: str | None = None, labels: LabelChoice | None = None) -> ScoringSource:
        """The store's current labels (its working copy, or `version` when it was loaded from one):
        the humans', or those `labels` chooses (`label_sets`)."""
        from .. import versioning  # loaded only when scoring the store or a version
        from ..formats.columns import Columns
        from .label_sets import HUMAN, label_rows, machine_rows

        choice = labels or HUMAN
        with store.read_transaction():
            info = store.settings.info()
            queries = store.reads.queries()
            rows = label_rows(store, choice)
            docs = versioning.documents_hash(store.reads.documents())
            machine = None if choice.human else versioning.machine_labels_hash(machine_rows(store, choice))
        label_set = (choice.labels, choice.machine_assessor)
        return cls(
            labels=Columns.from_rows(rows, integer=True),
            labels_hash=None,
            queries=[q.id for q in queries],
            strata={q.id: q.stratum for q in queries},
            scale=SourceScale(info.scale.max_grade, info.scale.relevance_threshold),
            info=info,
            golden=PlainGoldenFingerprint(
                name=info.name,
                version=version,
                # label_rows come sorted by (query, doc): the hash streams them as they are
                content_hash=versioning.content_hash(
                    info, queries, rows, docs, presorted=True, label_set=label_set, machine_hash=machine
                ),
                labels=choice.labels,
                machine_assessor=choice.machine_assessor,
            ),
            qrels=None,
            scale_of=info.name,
        )

    @classmethod
    def from_version(cls, folder: Path, *, check: bool = True) -> ScoringSource:
        """A frozen version's labels; with `check`, an altered version is refused."""
        from .. import versioning

        version = versioning.read_labels(folder, check=check, memo=checked_versions())
        manifest = version.manifest
        return cls(
            labels=version.labels,
            labels_hash=version.labels_hash,
            queries=[q.id for q in version.queries],
            strata={q.id: q.stratum for q in version.queries},
            scale=SourceScale(version.info.scale.max_grade, version.info.scale.relevance_threshold),
            info=version.info,
            golden=PlainGoldenFingerprint(
                name=manifest.name,
                version=manifest.version,
                content_hash=version.content_hash,
                labels=manifest.labels,
                machine_assessor=manifest.machine_assessor,
            ),  # fmt: skip
            qrels=None,
            scale_of=f"{manifest.name} {manifest.version}",
        )

    @classmethod
    def from_qrels(
        cls, path: Path, *, max_grade: int | None = None, relevance_level: int | None = None
    ) -> ScoringSource:
        """A TREC qrels file (read once); its queries are the ones evaluated. The scale is
        0..`max_grade` (default: the file's top grade, raised to `relevance_level` when that is
        higher, as trec_eval -l 2 on binary qrels finds nothing relevant), relevant from
        `relevance_level` (default 1)."""
        from ..formats.runs import read_qrels_file

        qrels = read_qrels_file(path)
        top = int(qrels.columns.value.max(initial=1))
        _check_top(top, max_grade, display(path))
        level = relevance_level if relevance_level is not None else 1
        scale_top = max_grade if max_grade is not None else max(top, level, 1)
        _check_scale(scale_top, level)
        return cls(
            labels=qrels.columns,
            labels_hash=None,  # hashed again for each run (~2 ms on 269k labels): 8 bytes a label not held meanwhile
            queries=None,
            strata={},
            scale=SourceScale(scale_top, level),
            info=None,
            golden=None,
            qrels=PlainFileFingerprint(name=as_text(path.name), sha256=qrels.sha256),
            scale_of=None if max_grade is None else f"--max-grade {max_grade}",
        )

    def with_scale(self, *, max_grade: int | None = None, relevance_level: int | None = None) -> ScoringSource:
        """The golden set's scale with its top grade and/or relevance threshold replaced (what is
        not given stays the golden set's own)."""
        if max_grade is None and relevance_level is None:
            return self
        _check_top(int(self.labels.value.max(initial=0)), max_grade, self.info.name if self.info else "the qrels")
        top = max_grade if max_grade is not None else self.scale.max_grade
        level = relevance_level if relevance_level is not None else self.scale.relevance_threshold
        _check_scale(top, level)
        info = self.info
        if info is not None:  # the golden set's named grades stay where the top grade does
            scale = info.scale
            new = _scale(top, level, levels=scale if top == scale.max_grade else None)
            info = info.model_copy(update={"scale": new})
        scale_of = self.scale_of if max_grade is None else f"--max-grade {max_grade}"
        return replace(self, scale=SourceScale(top, level), info=info, scale_of=scale_of)


def checked_versions() -> Path | None:
    """Where scoring records the version contents that passed the whole check (`versioning.check.
    check_labels`): `$QRELKIT_CACHE/checked-versions`, else `$XDG_CACHE_HOME/qrelkit/...`, else
    `~/.cache/qrelkit/...`; `QRELKIT_CACHE=off` records nothing (every run checks everything)."""
    import os

    root = os.environ.get("QRELKIT_CACHE")
    if root == "off":
        return None
    if root:
        return Path(root) / "checked-versions"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qrelkit" / "checked-versions"


def _check_top(top: int, max_grade: int | None, where: str) -> None:
    if max_grade is not None and top > max_grade:
        raise UsageError(f"{where} holds grade {top}, above --max-grade {max_grade}", f"give --max-grade {top} or more")


def _check_scale(top: int, level: int) -> None:
    """A scale 0..top relevant from `level`, as `GradeScale` holds one, or a usage error."""
    if top > GRADE_TOP:
        raise UsageError(f"--max-grade {top} is above the highest grade, {GRADE_TOP}", f"give at most {GRADE_TOP}")
    if not 1 <= level <= top:
        raise UsageError(
            f"--relevance-level {level} is outside the scale's grades 1..{top}",
            "give a relevance level between 1 and the top grade (--max-grade)",
        )


def _scale(top: int, level: int, *, levels: GradeScale | None = None) -> GradeScale:
    """A grade scale 0..top relevant from `level` (the named levels of `levels` when given;
    `_check_scale` checked the two)."""
    from ..models import GradeScale

    if levels is not None:
        return GradeScale(levels=levels.levels, top=levels.top, relevance_threshold=level)
    return GradeScale.from_max(top, level)


def choose_source(
    open_store: Callable[[], Store],
    *,
    golden: Path | None,
    qrels: Path | None,
    verify: bool = True,
    max_grade: int | None = None,
    relevance_level: int | None = None,
    labels: str | None = None,
    machine_assessor: str | None = None,
) -> ScoringSource:
    """--qrels FILE, --golden FOLDER, or else the store (opened only then); `max_grade` and
    `relevance_level` (--max-grade, --relevance-level: trec_eval's -l) replace the scale's top
    grade and relevance threshold (a qrels file's defaults: its top grade, 1; a golden set's: its own).
    `labels` and `machine_assessor` (--labels, --machine-assessor) choose the store's labels
    (`label_sets.choose`); a version holds the labels it was frozen with, and a qrels file's are
    what they are: another choice there is refused."""
    if golden and qrels:
        raise UsageError("give --golden or --qrels, not both", "--golden scores against a frozen version")
    if qrels:
        _refuse_labels_of_file(labels, machine_assessor)
        return ScoringSource.from_qrels(qrels, max_grade=max_grade, relevance_level=relevance_level)
    if golden:
        source = ScoringSource.from_version(golden, check=verify)
        _refuse_other_labels(source, labels, machine_assessor, golden)
    else:
        from .label_sets import choose

        store = open_store()
        source = ScoringSource.from_store(store, labels=choose(store, labels or "human", machine_assessor))
    return source.with_scale(max_grade=max_grade, relevance_level=relevance_level)


def _refuse_labels_of_file(labels: str | None, machine_assessor: str | None) -> None:
    if (labels not in (None, "human")) or machine_assessor is not None:
        raise UsageError(
            "--labels and --machine-assessor choose the store's labels; a qrels file holds the labels it holds",
            "leave them out with --qrels, or score against the store",
        )


def _refuse_other_labels(source: ScoringSource, labels: str | None, assessor: str | None, folder: Path) -> None:
    """A version scores with the labels it was frozen with: asking for others is refused."""
    golden = source.golden
    if golden is None or (labels is None and assessor is None):
        return
    if labels not in (None, golden.labels) or assessor not in (None, golden.machine_assessor):
        held = golden.labels + (f" ({golden.machine_assessor})" if golden.machine_assessor else "")
        raise UsageError(
            f"{display(folder)} was frozen with {held} labels; --labels cannot choose others there",
            "score against the store for other labels, or freeze a version with them",
        )


@dataclass(frozen=True)
class ScoringPlan:
    """What to compute: canonical measure names, the evaluated queries and the strata weights."""

    metrics: list[str]
    queries: list[str] | None
    weights: dict[str, float]
    outside: frozenset[str] = frozenset()
    """Golden-set queries a profile leaves out (its other strata): not "run-only" when a run has them."""
    score_precision: str = "float64"
    """How run scores compare: float64 (trec_eval 10) or float32 (trec_eval 9, pytrec_eval)."""
    keep_unlabeled: bool = False
    """Score the golden-set queries with no label as 0 (`--keep-unlabeled-queries`); by default
    they are left out of the means and counted, as trec_eval leaves out queries its qrels lack."""
    reference: str = "trec_eval"
    """Whose rules the measures follow where trec_eval versions differ: trec_eval (10) or pytrec_eval."""


def canonical(names: str | Sequence[str]) -> list[str]:
    """Measure names as the reports carry them (`MAP` -> `AP`, `Hit@3` -> `Success@3`); a measure
    named twice by the user is an error (`scoring.measures`)."""
    return [m.name for m in parse_measures(names if isinstance(names, str) else list(names))]


def refuse_empty_metrics(metrics: str | None) -> None:
    """`--metrics ''` (or only commas and spaces) names no measure: an error, not the defaults."""
    if metrics is not None and not metrics.replace(",", " ").strip():
        raise UsageError(
            "--metrics names no measure",
            "give measures, e.g. --metrics nDCG@10,RR, or leave --metrics out for the defaults",
        )


def merge(first: Sequence[str], *more: Sequence[str]) -> list[str]:
    """Canonical names of `first`, then of every other list's measures not already there."""
    extra = [name for names in more for name in ([names] if isinstance(names, str) else names)]
    return canonical_names([*(canonical(first) if first else []), *extra])


def plan(
    source: ScoringSource,
    *,
    metrics: str | None = None,
    profile: str | None = None,
    extra: Sequence[str] = (),
    score_precision: str = "float64",
    keep_unlabeled: bool = False,
    reference: str = "trec_eval",
) -> ScoringPlan:
    """The measures (--metrics, else the profile's, else the defaults; `extra` appended), and the
    queries and weights (the profile's strata only, when a profile is chosen); `keep_unlabeled`
    as `ScoringPlan`'s. With `reference` pytrec_eval, a measure trec_eval 9 computes otherwise
    than 10 follows trec_eval 9 (`IPrec@0.1` is `IPrec(trec_eval=9)@0.1`)."""
    refuse_empty_metrics(metrics)
    strata_filter: list[str] | None = None
    chosen: Sequence[str] = DEFAULT_METRICS
    if profile is not None:
        found = {p.name: p for p in source.info.profiles} if source.info is not None else {}
        if profile not in found:
            known = ", ".join(sorted(found)) or "none"
            raise UsageError(f"no scoring profile {profile!r} in this golden set", f"profiles: {known}")
        chosen, strata_filter = found[profile].metrics, found[profile].strata
    names = reference_names(merge(metrics if metrics else list(chosen), extra), reference)
    if source.scale_of is not None:
        refuse_above_scale(parse_measures(names), source.scale.max_grade, source.scale_of)
    queries = source.queries
    weights = {s.name: s.weight for s in source.info.strata} if source.info is not None else {}
    outside: frozenset[str] = frozenset()
    if strata_filter is not None:
        kept = [q for q in queries or [] if source.strata.get(q, DEFAULT_STRATUM) in strata_filter]
        outside = frozenset(queries or []) - set(kept)
        queries = kept
        weights = {s: w for s, w in weights.items() if s in strata_filter}
    return ScoringPlan(
        metrics=names,
        queries=queries,
        weights=weights,
        outside=outside,
        score_precision=score_precision,
        keep_unlabeled=keep_unlabeled,
        reference=reference,
    )
