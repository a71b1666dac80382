"""Label Studio's JSON export read into judgment events, and tasks and a labeling config written
for a Label Studio project.

The export ("JSON" in Label Studio's Export dialog) is one JSON array of tasks:

    [{"id": 17, "data": {"query_id": "q1", "doc_id": "d1", ...},
      "annotations": [{"id": 42, "completed_by": 3,  # or {"id": 3, "email": "ann@example.com"}
                       "result": [{"from_name": "relevance", "to_name": "doc_text", "type": "choices",
                                   "value": {"choices": ["relevant"]}}],  # or "rating", {"rating": 3}
                       "was_cancelled": false, "ground_truth": false, "lead_time": 12.5,
                       "created_at": "2024-05-01T10:00:00.123456Z", "updated_at": "..."}],
      "predictions": [...]}, ...]

Each annotation becomes one event: a grade from the control named `from_name`, or a skip when
the annotator skipped the task (`was_cancelled`); predictions (a model's) and drafts are not read.
Every problem is an `InputError` naming the file, the task (its id and index), the annotation and
the field; the whole file is checked before anything is written.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from pydantic import ValidationError

from ..errors import InputError
from ..models import ASSESSOR_RULE, TIMESTAMP_FORM, GradeScale, Judgment, JudgmentState, is_identifier
from ..models.domain import TIMESTAMP
from . import validation
from .ids import check_id
from .jsonsafe import DuplicateKeyError, refuse_lone_surrogates, unique_keys
from .paths import PathLike, display
from .reading import read_bytes

Control = Literal["choices", "rating"]
CONTROLS: tuple[Control, ...] = ("choices", "rating")
CONTROL_NAME = "relevance"
"""The `name` of the control in the labeling config `labeling_config` writes (and the default of
`import label-studio --grade-from`)."""
DOC_OBJECT = "doc_text"
"""The `name` of the Text object tag the control labels (the result's `to_name`)."""

EXPORT_HINT = "export the project from Label Studio as JSON (a list of tasks with their annotations)"
TIME_HINT = f"Label Studio writes times such as 2021-03-09T22:16:08.728353Z; give {TIMESTAMP_FORM}"


@dataclass(frozen=True)
class Fields:
    """Which keys of a task's `data` hold what, and which control holds the grade."""

    query: str = "query_id"
    doc: str = "doc_id"
    query_text: str | None = None
    doc_text: str | None = None
    doc_title: str | None = None
    control: str = CONTROL_NAME


@dataclass(frozen=True)
class Grading:
    """How a control's value becomes a grade: a rating plus `offset`; a choice through `choices`
    (its text -> grade), else, when `choices` maps nothing, `levels` (a level name of the scale)
    and then the text read as a whole number. `ground_truth` makes a ground-truth annotation an
    adjudication (the pair's final grade) instead of one vote among the others."""

    max_grade: int
    offset: int = 0
    choices: Mapping[str, int] = field(default_factory=dict)
    levels: Mapping[str, int] = field(default_factory=dict)
    ground_truth: bool = False
    predictions: bool = False
    """Read the tasks' predictions (a model's grades) too; otherwise they are ignored."""


@dataclass(frozen=True)
class Task:
    """One task read: its pair, the texts the options named, and one event per annotation."""

    where: str
    query_id: str
    doc_id: str
    query_text: str | None
    doc_text: str | None
    doc_title: str | None
    events: list[Judgment]
    prediction: Prediction | None = None
    """The task's prediction, when `Grading.predictions` asks for them (never an event)."""


@dataclass(frozen=True)
class Prediction:
    """A task's prediction read: its grade, its model_version, its time, and the prediction as given."""

    grade: int
    model_version: str | None
    timestamp: str | None
    raw: str


def choice_names(scale: GradeScale) -> dict[int, str]:
    """Grade -> the choice text that stands for it: the level names, when each is unique and none
    is the number of another grade; otherwise the grades' numbers. What `labeling_config` offers and
    `export` writes, and (inverted) what `import` reads when no `--choice` is given."""
    levels = scale.every_level()
    names = [level.name for level in levels]
    numbers = {str(level.grade): level.grade for level in levels}
    clash = any(numbers.get(level.name, level.grade) != level.grade for level in levels)
    if len(set(names)) != len(names) or clash:
        return {level.grade: str(level.grade) for level in levels}
    return {level.grade: level.name for level in levels}


# -- reading --------------------------------------------------------------------------------


class _NotFinite(ValueError):
    """NaN or Infinity in the JSON (which `json` would read as a float)."""


def _no_constant(name: str) -> Any:
    raise _NotFinite(name)


def load(path: PathLike) -> list[Any]:
    """The export's list of tasks, parsed: broken JSON is an error naming its line; a repeated key,
    NaN, an integer over 4,300 digits or a lone surrogate is refused."""
    name = display(path)
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("not valid UTF-8 text", "save the file as UTF-8", path=name, line=line) from None
    try:
        tasks = json.loads(text, object_pairs_hook=unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", EXPORT_HINT, path=name, line=exc.lineno
        ) from None
    except DuplicateKeyError as exc:
        raise InputError(str(exc), "give each key once", path=name) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", EXPORT_HINT, path=name) from None
    except _NotFinite as exc:
        raise InputError(f"{exc} is not a JSON number", "numbers are finite", path=name) from None
    except ValueError:  # an integer over 4,300 digits ("Exceeds the limit")
        raise InputError("a number is too long (over 4,300 digits)", path=name) from None
    refuse_lone_surrogates(text, tasks, path=name, nested_hint=EXPORT_HINT)
    if not isinstance(tasks, list):
        found = "one JSON object" if isinstance(tasks, dict) else f"a JSON {_kind(tasks)}"
        raise InputError(f"expected a JSON list of tasks, found {found}", EXPORT_HINT, path=name)
    return tasks


def read_export(path: PathLike, fields: Fields, grading: Grading) -> list[Task]:
    """Every task of a Label Studio JSON export, checked whole (see the module)."""
    reader = _Reader(display(path), fields, grading)
    return [reader.task(k, obj) for k, obj in enumerate(load(path))]


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list", dict: "object"}.get(
        type(value), type(value).__name__
    )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Reader:
    """Reads tasks one at a time, remembering the ids seen (a repeated task or annotation id is an
    error naming both places)."""

    def __init__(self, name: str, fields: Fields, grading: Grading) -> None:
        self.name = name
        self.fields = fields
        self.grading = grading
        self.tasks: dict[object, str] = {}
        self.annotations: dict[object, str] = {}

    def fail(self, where: str, message: str, hint: str | None = None) -> InputError:
        return InputError(f"{where}: {message}", hint, path=self.name)

    def task(self, k: int, obj: object) -> Task:
        where = f"tasks[{k}]"
        if not isinstance(obj, dict):
            raise self.fail(where, f"a task is a JSON object, found a {_kind(obj)}", EXPORT_HINT)
        where = self._identify(obj, where, "task")
        if "completions" in obj and "annotations" not in obj:
            raise self.fail(
                where,
                "the task has 'completions', not 'annotations' (Label Studio before 1.0)",
                "export it again from Label Studio 1.0 or later",
            )
        data = obj.get("data")
        if not isinstance(data, dict):
            what = "is missing" if "data" not in obj else f"is a {_kind(data)}, not an object"
            raise self.fail(where, f"field 'data' {what}", f"is this a JSON-MIN or CSV export? {EXPORT_HINT}")
        f = self.fields
        query_id = self._id(data, f.query, "query", where, "--query-field")
        doc_id = self._id(data, f.doc, "document", where, "--doc-field")
        texts = [
            self._text(data, key, where, option)
            for key, option in (
                (f.query_text, "--query-text-field"),
                (f.doc_text, "--doc-text-field"),
                (f.doc_title, "--doc-title-field"),
            )
        ]
        annotations = obj.get("annotations")
        if annotations is None:
            annotations = []
        if not isinstance(annotations, list):
            raise self.fail(where, f"field 'annotations' is a {_kind(annotations)}, not a list")
        events = [self.annotation(where, j, a, query_id, doc_id) for j, a in enumerate(annotations)]
        prediction = self.prediction(where, obj.get("predictions")) if self.grading.predictions else None
        return Task(where, query_id, doc_id, texts[0], texts[1], texts[2], events, prediction)

    def prediction(self, task: str, predictions: object) -> Prediction | None:
        """The task's one prediction (Label Studio's `predictions`: model_version, score, result)."""
        if predictions is None or predictions == []:
            return None
        if not isinstance(predictions, list) or len(predictions) != 1 or not isinstance(predictions[0], dict):
            found = f"{len(predictions)} predictions" if isinstance(predictions, list) else f"a {_kind(predictions)}"
            raise self.fail(task, f"field 'predictions' holds {found}", "give a task one prediction (a model's grade)")
        obj = predictions[0]
        where = f"{task}, predictions[0]"
        version = obj.get("model_version")
        if version is not None and not isinstance(version, str):
            raise self.fail(where, f"field 'model_version' is a {_kind(version)}, not text")
        when = obj.get("updated_at") or obj.get("created_at")
        if when is not None and not (isinstance(when, str) and TIMESTAMP.fullmatch(when)):
            raise self.fail(where, f"its time {_shown(when)} is not {TIMESTAMP_FORM}", TIME_HINT)
        raw = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return Prediction(self._grade(obj, where), version, when, raw)

    def _identify(self, obj: dict[str, Any], where: str, what: str, within: str = "") -> str:
        """`where` with the object's id in front (`task 17 (tasks[2])`), after `within` (its task);
        a repeated id is an error naming both places."""
        seen = self.annotations if what == "annotation" else self.tasks
        if "id" not in obj:
            if what == "annotation":
                raise self.fail(within + where, "the annotation has no 'id'", EXPORT_HINT)
            return where
        ident = obj["id"]
        if isinstance(ident, bool) or not isinstance(ident, int | str):
            raise self.fail(within + where, f"field 'id' is a {_kind(ident)}, not a number or a string")
        named = within + f"{what} {_shown(ident) if isinstance(ident, str) else ident} ({where})"
        first = seen.setdefault(ident, named)
        if first != named:
            raise self.fail(
                named, f"the {what} id repeats {first}", f"each {what} has its own id: is a task listed twice?"
            )
        return named

    def _id(self, data: dict[str, Any], key: str, what: str, where: str, option: str) -> str:
        if key not in data:
            keys = ", ".join(_shown(k) for k in list(data)[:8]) or "none"
            raise self.fail(
                where,
                f"field 'data.{key}' is missing (the task's data has {keys})",
                f"name the field that holds the {what} id with {option}",
            )
        value = data[key]
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            found = "empty" if value == "" else f"a {_kind(value)}, not a {what} id"
            raise self.fail(
                where, f"field 'data.{key}' is {found}", f"name the field that holds the {what} id with {option}"
            )
        try:
            return check_id(value, what, None, None)
        except InputError as exc:
            raise self.fail(where, f"field 'data.{key}': {exc.message}", exc.hint) from None

    def _text(self, data: dict[str, Any], key: str | None, where: str, option: str) -> str | None:
        if key is None:
            return None
        value = data.get(key)
        if not isinstance(value, str):
            what = "is missing" if key not in data else f"is a {_kind(value)}, not text"
            raise self.fail(where, f"field 'data.{key}' {what}", f"{option} names a key of every task's data")
        return value

    def annotation(self, task: str, j: int, obj: object, query_id: str, doc_id: str) -> Judgment:
        where = f"{task}, annotations[{j}]"
        if not isinstance(obj, dict):
            raise self.fail(where, f"an annotation is a JSON object, found a {_kind(obj)}", EXPORT_HINT)
        where = self._identify(obj, f"annotations[{j}]", "annotation", f"{task}, ")
        cancelled = self._flag(obj, "was_cancelled", where)
        ground_truth = self._flag(obj, "ground_truth", where)
        grade = None if cancelled else self._grade(obj, where)
        state = JudgmentState.SKIPPED if cancelled else JudgmentState.GRADED
        if ground_truth and self.grading.ground_truth and grade is not None:
            state = JudgmentState.ADJUDICATED
        event = {
            "query_id": query_id,
            "doc_id": doc_id,
            "state": state,
            "grade": grade,
            "assessor": self._assessor(obj, where),
            "timestamp": self._time(obj, where),
            "seconds": self._seconds(obj, where),
        }
        try:
            return Judgment.model_validate(event)
        except ValidationError as exc:  # not expected: every field is checked above
            raise self.fail(where, validation.describe(exc)) from None

    def _flag(self, obj: dict[str, Any], key: str, where: str) -> bool:
        value = obj.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.fail(where, f"field {key!r} is a {_kind(value)}, not true or false")
        return value

    def _assessor(self, obj: dict[str, Any], where: str) -> str:
        """The annotator: the email of a `completed_by` object, else `ls-user-ID` for its user id."""
        who = obj.get("completed_by")
        user = who.get("id") if isinstance(who, dict) else who
        email = who.get("email") if isinstance(who, dict) else None
        if isinstance(email, str) and email:
            if not is_identifier(email):
                raise self.fail(
                    where, f"field 'completed_by.email' {_shown(email)} is not an assessor name", ASSESSOR_RULE
                )
            return email
        if isinstance(user, int) and not isinstance(user, bool) and user >= 0:
            return f"ls-user-{user}"
        found = "is missing" if "completed_by" not in obj else f"is {_shown(who)}"
        raise self.fail(
            where,
            f"field 'completed_by' {found}: no annotator",
            'Label Studio gives the user id (3) or the user ({"id": 3, "email": ...})',
        )

    def _time(self, obj: dict[str, Any], where: str) -> str:
        """When the annotation took its result: `updated_at`, else `created_at`; each checked."""
        for key in ("created_at", "updated_at"):
            value = obj.get(key)
            if key in obj and not (isinstance(value, str) and TIMESTAMP.fullmatch(value)):
                zoneless = isinstance(value, str) and TIMESTAMP.fullmatch(value + "Z")
                what = "has no time zone" if zoneless else f"is not {TIMESTAMP_FORM}"
                raise self.fail(where, f"field {key!r} {_shown(value)} {what}", TIME_HINT)
        when = obj.get("updated_at") or obj.get("created_at")
        if not isinstance(when, str):
            raise self.fail(where, "the annotation gives neither 'created_at' nor 'updated_at'", TIME_HINT)
        return when

    def _seconds(self, obj: dict[str, Any], where: str) -> float | None:
        value = obj.get("lead_time")
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise self.fail(where, f"field 'lead_time' is {_shown(value)}, not a number of seconds >= 0")
        return float(value)

    def _grade(self, obj: dict[str, Any], where: str) -> int:
        """The grade the annotation's result for the control gives (see `Grading`)."""
        control = self.fields.control
        results = obj.get("result")
        if results is None:
            results = []
        if not isinstance(results, list):
            raise self.fail(where, f"field 'result' is a {_kind(results)}, not a list")
        mine = [r for r in results if isinstance(r, dict) and r.get("from_name") == control]
        if len(mine) != 1:
            names = sorted({str(r.get("from_name")) for r in results if isinstance(r, dict)})
            others = f" (it has results from {', '.join(map(_shown, names))})" if names else " (its result is empty)"
            what = "no result" if not mine else f"{len(mine)} results"
            raise self.fail(
                where,
                f"{what} from the control {_shown(control)}{others}",
                "name the control that holds the grade with --grade-from (a skipped task is 'was_cancelled': true)",
            )
        return self._value(mine[0], where)

    def _value(self, result: dict[str, Any], where: str) -> int:
        kind, value = result.get("type"), result.get("value")
        if not isinstance(value, dict):
            raise self.fail(where, f"the result's 'value' is a {_kind(value)}, not an object")
        if kind == "rating":
            rating = value.get("rating")
            if isinstance(rating, bool) or not isinstance(rating, int):
                raise self.fail(where, f"field 'value.rating' is {_shown(rating)}, not a whole number")
            return self._on_scale(rating + self.grading.offset, f"rating {rating}", where)
        if kind == "choices":
            chosen = value.get("choices")
            if not (isinstance(chosen, list) and len(chosen) == 1 and isinstance(chosen[0], str)):
                raise self.fail(
                    where,
                    f"field 'value.choices' is {_shown(chosen)}, not one choice",
                    'a grade is one choice (choice="single")',
                )
            return self._on_scale(self._choice(chosen[0], where), f"choice {_shown(chosen[0])}", where)
        raise self.fail(
            where, f"the control's result is of type {_shown(kind)}", "grades come from a Rating or Choices control"
        )

    def _choice(self, text: str, where: str) -> int:
        g = self.grading
        if g.choices:
            if text not in g.choices:
                known = ", ".join(_shown(c) for c in g.choices)
                raise self.fail(
                    where,
                    f"choice {_shown(text)} has no grade (--choice maps {known})",
                    f"add --choice {_shown(text + '=GRADE')}",
                )
            return g.choices[text]
        if text in g.levels:
            return g.levels[text]
        if re.fullmatch(r"[0-9]{1,10}", text):
            return int(text)
        raise self.fail(
            where,
            f"choice {_shown(text)} is neither a grade nor a level name of the scale",
            "map each choice to a grade: --choice 'TEXT=GRADE' (repeat it)",
        )

    def _on_scale(self, grade: int, given: str, where: str) -> int:
        top = self.grading.max_grade
        if 0 <= grade <= top:
            return grade
        offset = f" + offset {self.grading.offset}" if self.grading.offset else ""
        side = "below 0" if grade < 0 else f"above the scale's highest grade {top}"
        hint = (
            "shift ratings with --grade-offset (Label Studio's stars start at 1: --grade-offset -1 makes "
            "1..4 stars 0..3), map choices with --choice, or widen the scale with `qrelkit init --max-grade`"
        )
        raise self.fail(where, f"{given}{offset} gives grade {grade}, {side}", hint)


# -- writing --------------------------------------------------------------------------------


def annotation(
    ident: int, event: Judgment, control: Control, names: Mapping[int, str], *, ground_truth: bool = False
) -> dict[str, Any]:
    """One event (a grade, an adjudication or a skip) as a Label Studio annotation: a skip is a
    cancelled annotation with an empty result; the annotator is `completed_by.email` (Label Studio
    finds its member by email when the tasks are imported there), or the user id of a name
    `ls-user-ID` (what `import` names an annotator known by id only)."""
    result: list[dict[str, Any]] = []
    if event.grade is not None:
        value: dict[str, Any] = (
            {"rating": event.grade + 1} if control == "rating" else {"choices": [names[event.grade]]}
        )
        result = [
            {"id": f"r{ident}", "from_name": CONTROL_NAME, "to_name": DOC_OBJECT, "type": control, "value": value}
        ]
    when = event.timestamp.isoformat() if event.timestamp is not None else None
    user = re.fullmatch(r"ls-user-(0|[1-9][0-9]{0,17})", event.assessor)
    return {
        "id": ident,
        "completed_by": int(user[1]) if user else {"email": event.assessor},
        "result": result,
        "was_cancelled": event.state is JudgmentState.SKIPPED,
        "ground_truth": ground_truth,
        "created_at": when,
        "updated_at": when,
        "lead_time": event.seconds,
    }


def prediction(ident: int, assessor: str, grade: int, control: Control, names: Mapping[int, str]) -> dict[str, Any]:
    """A machine label as a Label Studio prediction (never an annotation): its model_version the
    machine assessor, its result the grade in the project's control (as `annotation` writes it)."""
    value: dict[str, Any] = {"rating": grade + 1} if control == "rating" else {"choices": [names[grade]]}
    result = {"id": f"p{ident}", "from_name": CONTROL_NAME, "to_name": DOC_OBJECT, "type": control, "value": value}
    return {"id": ident, "model_version": assessor, "result": [result]}


def write_tasks(tasks: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """The tasks as one JSON array, a task per line; their number."""
    n = 0
    out.write("[")
    for task in tasks:
        out.write(",\n" if n else "\n")
        out.write(json.dumps(task, ensure_ascii=False, separators=(",", ":")))
        n += 1
    out.write("\n]\n" if n else "]\n")
    return n


def _attr(text: str) -> str:
    """`text` as an XML attribute value, quoted (`&`, `<`, `>`, quotes, tabs and newlines escaped)."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return '"' + escaped.replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;") + '"'


def labeling_config(scale: GradeScale, control: Control) -> str:
    """The labeling config (XML) of a project for the tasks `export label-studio` writes: the query,
    its guidelines, the document, and a Choices (the scale's levels) or a Rating (grade G is G + 1
    stars: Label Studio's ratings start at 1) control named `relevance`; definitions, when the
    levels have them, as headers. Label Studio replaces `$name` in a value by the task's data."""
    names = choice_names(scale)
    lines = [
        "<View>",
        '  <Header value="$query_text"/>',
        '  <Text name="query_description" value="$query_description"/>',
        '  <Header value="$doc_title" size="4"/>',
        f'  <Text name="{DOC_OBJECT}" value="$doc_text"/>',
    ]
    for level in scale.every_level():
        shown = names[level.grade] + (f" ({level.grade + 1} stars)" if control == "rating" else "")
        if level.definition is not None:
            lines.append(f'  <Header size="6" value={_attr(f"{shown}: {level.definition}")}/>')
        elif control == "rating":
            lines.append(f'  <Header size="6" value={_attr(shown)}/>')
    if control == "rating":
        top = scale.max_grade + 1
        lines.append(f'  <Rating name="{CONTROL_NAME}" toName="{DOC_OBJECT}" maxRating="{top}" required="true"/>')
    else:
        lines.append(f'  <Choices name="{CONTROL_NAME}" toName="{DOC_OBJECT}" choice="single-radio" required="true">')
        lines += [f"    <Choice value={_attr(names[g])}/>" for g in sorted(names)]
        lines.append("  </Choices>")
    lines.append("</View>")
    return "\n".join(lines) + "\n"
