"""Machine assessors: a label a program gave (a lexical baseline, an LLM), with its provenance.

Machine labels are kept apart from the human judgment log: a machine label is never a vote, and
resolution, agreement, adjudication's votes and the judging screen never see one (the adjudication
screen shows it beside the votes, marked as a machine's). Scores, exports and freezes use them only
when asked (`LabelSet`).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal, get_args

from pydantic import Field, JsonValue, StrictInt, StringConstraints, model_validator

from ..errors import UsageError
from .domain import Identifier, _Model, utcnow

ParseStatus = Literal["ok", "unparsed", "refused", "error"]
"""What became of a machine's reply: a grade read (`ok`), a reply with no grade in the asked form
(`unparsed`), a refusal, or no reply (`error`). Only `ok` carries a grade: an unparsed reply is
never a grade (never 0)."""
PARSE_STATUSES: tuple[ParseStatus, ...] = get_args(ParseStatus)

LabelSet = Literal["human", "machine", "human+machine"]
"""Which labels a score, an export or a freeze uses: the humans' (the default), one machine
assessor's, or the humans' with the machine's filling the pairs no human labeled (`--labels`)."""
LABEL_SETS: tuple[LabelSet, ...] = get_args(LabelSet)

LEXICAL = "lexical"
"""The local term-overlap judge's assessor name."""
LLM_PREFIX = "llm:"
"""An LLM judge's assessor name is `llm:MODEL`."""

MachineAssessor = Annotated[
    str, StringConstraints(min_length=1, max_length=1024, pattern=r"^(lexical|llm:[^\s\x00-\x1f\x7f-\x9f]+)$")
]
"""`lexical`, or `llm:MODEL` (the model's name, no white space)."""


_MACHINE = re.compile(r"(lexical|llm:[^\s\x00-\x1f\x7f-\x9f]{1,1020})")


def is_machine_assessor(name: str) -> bool:
    """Whether `name` names a machine assessor (`lexical`, `llm:MODEL`)."""
    return _MACHINE.fullmatch(name) is not None


def check_label_set(labels: str, machine_assessor: str | None) -> LabelSet:
    """`--labels` as a `LabelSet`; `--machine-assessor` without machine labels is refused."""
    if labels not in LABEL_SETS:
        raise UsageError(f"--labels {labels!r:.40} is not a label set", f"give one of {', '.join(LABEL_SETS)}")
    if labels == "human" and machine_assessor is not None:
        raise UsageError(
            "--machine-assessor chooses machine labels, but --labels is human",
            "add --labels machine or --labels human+machine",
        )
    return labels


class MachineLabel(_Model):
    """One label a machine assessor gave a (query, document) pair, and how it came about: one
    row of the store's append-only `machine_labels` table (the latest row of an assessor's pair
    counts)."""

    assessor: MachineAssessor
    query_id: Identifier
    doc_id: Identifier
    status: ParseStatus
    grade: Annotated[StrictInt, Field(ge=0)] | None = None
    """The grade read from the reply: present exactly when `status` is `ok`."""
    timestamp: datetime = Field(default_factory=utcnow)
    model: str | None = None
    """The model that answered (`lexical` for the local judge)."""
    endpoint_host: str | None = None
    """The host the request went to; None for a local judge (nothing was sent anywhere)."""
    parameters: dict[str, JsonValue] = Field(default_factory=dict)
    """The judge's parameters (temperature, thresholds, ...), as sent."""
    template_sha256: str
    """sha256 of the prompt template (the local judge's: of its rule's description)."""
    prompt_sha256: str
    """sha256 of the rendered prompt (the template filled with this pair's query and document)."""
    reply: str | None = None
    """The raw reply, as received."""
    latency: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    """Seconds from asking to the reply."""
    tokens_in: int | None = Field(default=None, ge=0)
    tokens_out: int | None = Field(default=None, ge=0)
    cost: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    cache_key: str
    """sha256 over (judge and model, parameters, template hash, query text, document text): the
    same question asked again is a cache hit, never a second call."""
    error: str | None = None
    """Why there is no reply (status `error`: a timeout, a refused connection, an HTTP status), as
    the transport said it; None otherwise."""

    @model_validator(mode="after")
    def _grade_matches_status(self) -> MachineLabel:
        if (self.status == "ok") != (self.grade is not None):
            raise ValueError("a machine label has a grade exactly when its status is ok")
        return self


class MachineCount(_Model):
    """Machine labels of one assessor in one parse status (`qrelkit status`): rows, and pairs
    whose latest row has that status."""

    assessor: str
    status: ParseStatus
    rows: int
    pairs: int
