"""The YAML header of a Hugging Face dataset card (README.md between two `---` lines): written
for `export hub`, and its `configs:` read back for `import hub`.

Written: every string is a YAML double-quoted scalar, escaped so that any YAML 1.1 or 1.2 reader
(PyYAML, which `datasets` and `huggingface_hub` use) reads back the same text.

Read: only the `configs:` key, in the block style the Hub and `datasets` write (`- config_name:`
items holding `data_files:` as a path, a list of paths or a list of `split:` / `path:` mappings);
plain, single- and double-quoted scalars, `[a, b]` lists and comments. Anything else under
`configs:` is an `InputError` naming the README's line; the other keys are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from .paths import display

DEFAULT_CONFIG = "default"
"""Hugging Face's name of the config a dataset loads when none is named (MTEB's qrels). Not the
stratum `models.DEFAULT_STRATUM`, which reads the same."""
DELIMITER = "---"
"""The line that opens and closes a card's YAML header."""
_PRINTABLE = re.compile(r"[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""The characters PyYAML lets stand in a stream, but for the line and paragraph separators (which
a YAML reader may take for line breaks): the others (C0 and C1 controls, NEL, the BMP's
non-characters) are escaped."""
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar."""
    out = []
    for c in text:
        if c in _SHORT:
            out.append(_SHORT[c])
        elif _PRINTABLE.fullmatch(c):
            out.append(c)
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class DataFiles:
    """One split of a config: its name and the paths (or glob patterns) of its files."""

    split: str
    paths: tuple[str, ...]


def header(fields: Sequence[tuple[str, str | list[str]]], configs: dict[str, list[DataFiles]]) -> str:
    """The YAML header, delimiters included: `fields` in order (a string or a list of strings),
    then `configs:` (config name -> its splits)."""
    lines = [DELIMITER]
    for key, value in fields:
        if isinstance(value, str):
            lines.append(f"{key}: {quoted(value)}")
        else:
            lines += [f"{key}:", *(f"- {quoted(v)}" for v in value)]
    lines.append("configs:")
    for name, splits in configs.items():
        lines += [f"- config_name: {quoted(name)}", "  data_files:"]
        for s in splits:
            lines.append(f"  - split: {quoted(s.split)}")
            lines.append(f"    path: {quoted(s.paths[0])}" if len(s.paths) == 1 else "    path:")
            lines += [f"    - {quoted(p)}" for p in s.paths] if len(s.paths) > 1 else []
    return "\n".join([*lines, DELIMITER]) + "\n"


# -- reading -------------------------------------------------------------------------------------

HINT = (
    "write the configs as the Hub does: 'configs:' then '- config_name: NAME', 'data_files:' and "
    "'- split: SPLIT' / 'path: FILE' items"
)


@dataclass
class _Line:
    number: int
    indent: int
    text: str


def read_configs(readme: Path) -> dict[str, list[DataFiles]] | None:
    """Config name -> its splits, from the README's YAML header; None when the README has no
    header or the header no `configs:`."""
    lines = _header_lines(readme)
    if lines is None:
        return None
    start = next((i for i, ln in enumerate(lines) if ln.indent == 0 and _key(ln.text) == "configs"), None)
    if start is None:
        return None
    head = lines[start]
    rest = head.text.split(":", 1)[1].strip()
    name = display(readme)
    if rest:
        raise InputError(f"configs: {rest[:40]!r} is not a list of configs", HINT, path=name, line=head.number)
    block = []
    for ln in lines[start + 1 :]:
        if ln.indent == 0 and not ln.text.startswith("-"):
            break
        block.append(ln)
    if not block:
        return {}
    value, _ = _Parser(block, name).node(0, block[0].indent)
    return _configs(value, name, head.number)


def _header_lines(readme: Path) -> list[_Line] | None:
    try:
        text = readme.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", "a dataset card is a UTF-8 file", path=display(readme)) from None
    raw = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines: U+2028 is no line end here
    if not raw or raw[0].rstrip() != DELIMITER:
        return None
    found: list[_Line] = []
    for number, line in enumerate(raw[1:], start=2):
        if line.rstrip() in (DELIMITER, "..."):
            return found
        body = _strip_comment(line).rstrip()
        if body.strip():
            found.append(_Line(number, len(body) - len(body.lstrip(" ")), body.strip()))
    raise InputError("the YAML header never closes", f"end it with a '{DELIMITER}' line", path=display(readme))


def _strip_comment(line: str) -> str:
    """The line without its `# comment` (a `#` outside quotes, at the start or after a space)."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1  # the escaped character cannot close the string
            elif c == quote:
                quote = None
        elif c in "\"'" and (i == 0 or line[i - 1] in " -:[,{"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
        i += 1
    return line


def _key(text: str) -> str | None:
    """The key of a `key: value` line (plain keys only), else None."""
    match = re.match(r"^([A-Za-z_][\w-]*):(\s|$)", text)
    return match.group(1) if match else None


class _Parser:
    """Block sequences and mappings of scalars, by indentation (the subset `configs:` needs)."""

    def __init__(self, lines: list[_Line], name: str) -> None:
        self.lines, self.name = lines, name

    def fail(self, line: _Line, what: str) -> InputError:
        return InputError(f"YAML header: {what}", HINT, path=self.name, line=line.number)

    def node(self, i: int, indent: int) -> tuple[Any, int]:
        line = self.lines[i]
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(i, indent)
        return self.mapping(i, indent)

    def sequence(self, i: int, indent: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        while i < len(self.lines) and self.lines[i].indent == indent and self.lines[i].text.startswith("-"):
            line = self.lines[i]
            if line.text != "-" and not line.text.startswith("- "):
                raise self.fail(line, f"cannot read {line.text[:40]!r}")
            content = line.text[1:].lstrip()
            if not content:
                value, i = self.child(i + 1, indent)
            elif _split_key(content)[0] is not None:
                # `- key: value`: a mapping whose first key sits where the content starts
                self.lines[i] = _Line(line.number, indent + len(line.text) - len(content), content)
                value, i = self.mapping(i, self.lines[i].indent)
            else:
                value, i = self.scalar(content, line), i + 1
            items.append(value)
        return items, i

    def mapping(self, i: int, indent: int) -> tuple[dict[str, Any], int]:
        found: dict[str, Any] = {}
        while i < len(self.lines) and self.lines[i].indent == indent and not self.lines[i].text.startswith("- "):
            line = self.lines[i]
            key, rest = _split_key(line.text)
            if key is None:
                raise self.fail(line, f"expected 'key: value', found {line.text[:40]!r}")
            if key in found:
                raise self.fail(line, f"key {key!r} is given twice")
            if rest:
                found[key], i = self.scalar(rest, line), i + 1
                continue
            nxt = self.lines[i + 1] if i + 1 < len(self.lines) else None
            if nxt is not None and (nxt.indent > indent or (nxt.indent == indent and nxt.text.startswith("-"))):
                found[key], i = self.node(i + 1, nxt.indent)
            else:
                found[key], i = None, i + 1
        if i < len(self.lines) and self.lines[i].indent > indent:
            raise self.fail(self.lines[i], "unexpected indentation")
        return found, i

    def child(self, i: int, indent: int) -> tuple[Any, int]:
        if i < len(self.lines) and self.lines[i].indent > indent:
            return self.node(i, self.lines[i].indent)
        return None, i

    def scalar(self, text: str, line: _Line) -> Any:
        if text.startswith("["):
            if not text.endswith("]"):
                raise self.fail(line, "a [list] must end on its line")
            inner = text[1:-1].strip()
            return [self.scalar(part.strip(), line) for part in _split_commas(inner)] if inner else []
        if text.startswith(("{", "|", ">", "&", "*", "!")):
            raise self.fail(line, f"cannot read {text[:40]!r} (flow mappings, block scalars, anchors, tags)")
        if text.startswith('"'):
            return _double(text, lambda what: self.fail(line, what))
        if text.startswith("'"):
            if len(text) < 2 or not text.endswith("'"):
                raise self.fail(line, "a quoted string must end on its line")
            return text[1:-1].replace("''", "'")
        return None if text in ("~", "null", "Null", "NULL") else text


def _split_key(text: str) -> tuple[str | None, str]:
    """(key, the rest) of `key: rest`, the key plain or quoted."""
    if text[:1] in "\"'":
        end = _closing(text)
        if end is None or not text[end + 1 :].startswith(":"):
            return None, ""
        key = _double(text[: end + 1], lambda what: ValueError(what)) if text[0] == '"' else text[1:end]
        return str(key), text[end + 2 :].strip()
    match = re.match(r"^([^:#\s][^:]*?):(\s+|$)(.*)$", text)
    return (match.group(1), match.group(3).strip()) if match else (None, "")


def _closing(text: str) -> int | None:
    """Where the quoted string opening `text` closes."""
    quote, i = text[0], 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def _split_commas(text: str) -> Iterable[str]:
    part, quote = "", None
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == ",":
            yield part
            part = ""
            continue
        part += c
    yield part


_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}


def _double(text: str, fail: Any) -> str:
    """A YAML double-quoted scalar's text (on one line)."""
    if len(text) < 2 or not text.endswith('"') or _closing(text) != len(text) - 1:
        raise fail("a quoted string must end on its line")
    body, out, i = text[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in _HEX:
            digits = body[i + 2 : i + 2 + _HEX[code]]
            if len(digits) != _HEX[code] or not re.fullmatch(r"[0-9A-Fa-f]+", digits) or int(digits, 16) > 0x10FFFF:
                raise fail(f"bad escape \\{code}{digits[:8]}")
            out.append(chr(int(digits, 16)))
            i += 2 + _HEX[code]
        else:
            raise fail(f"unknown escape \\{code}")
    return "".join(out)


def _configs(value: Any, name: str, line: int) -> dict[str, list[DataFiles]]:
    """The parsed `configs:` list as config name -> splits (a bare path or list: split `train`)."""

    def bad(what: str) -> InputError:
        return InputError(f"YAML header: configs: {what}", HINT, path=name, line=line)

    if not isinstance(value, list):
        raise bad("expected a list of configs")
    found: dict[str, list[DataFiles]] = {}
    for item in value:
        config = item.get("config_name", DEFAULT_CONFIG) if isinstance(item, dict) else None
        if not isinstance(config, str):
            raise bad("each item needs a 'config_name'")
        if config in found:
            raise bad(f"config {config!r} is given twice")
        found[config] = _splits(item.get("data_files"), config, bad)
    return found


def _strings(value: Any) -> tuple[str, ...] | None:
    """A path or a non-empty list of paths, as a tuple; else None."""
    items = [value] if isinstance(value, str) else value
    if isinstance(items, list) and items and all(isinstance(v, str) for v in items):
        return tuple(items)
    return None


def _splits(files: Any, config: str, bad: Any) -> list[DataFiles]:
    bare = _strings(files)
    if bare is not None:
        return [DataFiles("train", bare)]
    if not isinstance(files, list) or not files:
        raise bad(f"config {config!r} has no data_files")
    splits = []
    for entry in files:
        paths = _strings(entry.get("path")) if isinstance(entry, dict) else None
        split = entry.get("split", "train") if isinstance(entry, dict) else None
        if not isinstance(split, str) or paths is None:
            raise bad(f"config {config!r}: each data_files item needs a 'split' and a 'path'")
        splits.append(DataFiles(split, paths))
    return splits
