"""Property-based fuzz of every task's input reader (issue 36, items 6 and 17).

For each task of :data:`judge.tasks.registry.TASKS`, hypothesis generates files of 1–3
records: all well-formed (1 in 4), well-formed but for one fault put in one record (1 in 2),
or anything at all (1 in 4). The faults: wrong types, missing fields, NaN, Infinity and 1e999
(which Python's ``json`` reads but JSON has not), integers of 4,301 digits, lists nested 100+
levels, lone surrogates, odd and over-long Unicode strings, a key given twice, duplicate,
missing or mistyped ids, spans outside their text, a field name holding a newline. The reader,
called in-process on the file (and on the same records as Python dicts, the API's input), must
either raise :class:`~judge.errors.InputError` naming the file, a line and a field that the
rules call bad, in one line, or return exactly the items the rules give. The rules are those
of ``docs/reference/file-formats.md`` ("What each task reads"), written here a second time as
small oracles; ranking has its own (TREC run and qrels).

Hypothesis draws each file's structure (mode, records, their shape, the fault and where it
goes); the values' contents come from one ``random.Random`` that hypothesis seeds per example
(:class:`Values`): with a strategy per value the file took 54 s instead of 27 s on a busy
2-core machine. ``EXAMPLES`` examples per task, derandomized (the same examples on every run,
no example database, no shrinking).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from judge.errors import InputError
from judge.items import DEFAULT_MAX_CHARS
from judge.tasks.base import Source
from judge.tasks.fcformats import Unparseable
from judge.tasks.fcoptions import FunctionCallOptions
from judge.tasks.registry import get_task, task_names

EXAMPLES = 300
"""Examples per task. Measured with coverage.py (branch mode) over judge/ and this file:
300 examples cover exactly the lines and branches of judge/ that 1,000 do (2,872 lines, 397
branches; every fault kind and record shape of the generators below is drawn), in 30 % of the
time; 150 miss one branch (a function call that is an object whose ``name`` is no string,
judge/io.py). Re-measure before lowering it."""
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
"""No shrinking: a failing example is reported as generated (shrinking huge strings and deep
lists costs minutes); the examples are the same on every run."""
UNPARSEABLE = "<unparseable>"
"""What an OpenAI tool-call prediction that is no list of calls is compared as."""


# ------------------------------------------------------------------------------ JSON values
@dataclass(frozen=True)
class Raw:
    """A number token Python's ``json`` reads but that is no finite JSON number, and the
    Python value an API caller would pass in its place."""

    text: str
    value: Any = dataclasses.field(repr=False)

    def __repr__(self) -> str:
        return f"Raw({self.text[:12]!r}{'…' if len(self.text) > 12 else ''})"


BAD_NUMBERS = [Raw("NaN", float("nan")), Raw("Infinity", float("inf")),
               Raw("-Infinity", float("-inf")), Raw("1e999", float("inf")),
               Raw("-2E400", float("-inf")), Raw("9" * 4301, 10**4301 - 1)]


def nested(depth: int) -> Any:
    """A list nested ``depth`` levels deep."""
    v: Any = []
    for _ in range(depth - 1):
        v = [v]
    return v


DEEP = [nested(99), nested(100), nested(120)]
DEEP_TEXT = {id(v): json.dumps(v) for v in DEEP}
SPECIAL = ["", " ", "\t", "\u2028", "\ufeffa", "a\x00b", "\u202eevil", "NaN", "null", "true", "1",
           "１", "e\u0301", "𝔘", "\r\n", "line\nbreak", "\ud800", "a\udfff", "漢字", "ǅ", "İ",
           *(c * n for c in "a漢😀" for n in (DEFAULT_MAX_CHARS, DEFAULT_MAX_CHARS + 1))]
"""Odd strings: invisible, bidi, NUL, line separators, lone surrogates, fullwidth digits,
combining marks, astral characters, and strings of exactly --max-chars and one more."""
_SURROGATE = re.compile("[\ud800-\udfff]")
CLEAN_SPECIAL = [x for x in SPECIAL if not _SURROGATE.search(x) and len(x) <= DEFAULT_MAX_CHARS]
NUMBERS = [0, 1, -1, 2, 7, 2**53 + 1, 2**70, -2**63, 1.0, 0.0, -0.0, 2.5, 1e308, -1e-308,
           5e-324, 0.1]
SCALARS = [None, True, False, *NUMBERS, *SPECIAL, *BAD_NUMBERS]
CLEAN_SCALARS = [None, True, False, *NUMBERS, *CLEAN_SPECIAL]
CHARS = [(0x20, 0x7E), (0x00, 0x1F), (0x7F, 0xFF), (0x300, 0x36F), (0x4E00, 0x9FFF),
         (0x200B, 0x202E), (0x2066, 0x2069), (0xE000, 0xF8FF), (0xFFF0, 0xFFFF),
         (0x10000, 0x10FFFF)]
"""Code point ranges of random strings: ASCII, controls, Latin-1, combining marks, CJK,
zero-width and bidi marks, private use, specials and non-characters, astral planes."""
NOTE_KEYS = ["note", "note", "note", "a\nb", "\u2028", "é", ""]
"""Names of a field no task reads: not checked, but bad JSON in it is named by its name."""


class Values:
    """Random JSON values for one example, from a ``random.Random`` hypothesis seeded:
    ``clean`` ones hold nothing the strict decoding refuses."""

    def __init__(self, rnd: random.Random) -> None:
        self.r = rnd

    def pick(self, seq: list[Any] | tuple[Any, ...]) -> Any:
        return seq[self.r.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def odd(self, clean: bool, min_size: int = 0) -> str:
        """A string of random code points (lone surrogates unless ``clean``)."""
        ranges = CHARS if clean else [*CHARS, (0xD800, 0xDFFF)]
        return "".join(chr(self.r.randint(*self.pick(ranges)))
                       for _ in range(self.r.randint(min_size, 6)))

    def text(self, clean: bool = False) -> str:
        return (self.pick(CLEAN_SPECIAL if clean else SPECIAL) if self.chance(0.7)
                else self.odd(clean))

    def number(self) -> float:
        """A random integer, or a finite float from random bits (subnormals, huge ones)."""
        if self.chance(0.5):
            return self.r.randint(-2**70, 2**70)
        x = struct.unpack("<d", self.r.getrandbits(64).to_bytes(8, "little"))[0]
        return x if x - x == 0 else 0.5

    def scalar(self, clean: bool = False) -> Any:
        k = self.r.random()
        if k < 0.6:
            return self.pick(CLEAN_SCALARS if clean else SCALARS)
        return self.text(clean) if k < 0.8 else self.number()

    def junk(self, clean: bool = False) -> Any:
        """Any JSON value: a scalar, a short list, a small object, or a deep list."""
        k = self.r.random()
        if k < 0.5:
            return self.scalar(clean)
        if k < 0.75:
            return [self.scalar(clean) for _ in range(self.r.randint(0, 3))]
        if k < 0.93:
            return {self.odd(clean): self.scalar(clean) if self.chance(0.7)
                    else [self.scalar(clean)] for _ in range(self.r.randint(0, 2))}
        return self.pick(DEEP[:1] if clean else DEEP)


def dump(v: Any, ascii_only: bool) -> str:
    """JSON text of ``v``, :class:`Raw` tokens written as they are."""
    if isinstance(v, Raw):
        return v.text
    if id(v) in DEEP_TEXT:
        return DEEP_TEXT[id(v)]
    if isinstance(v, list):
        return "[" + ", ".join(dump(x, ascii_only) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k, ensure_ascii=ascii_only) + ": " + dump(x, ascii_only)
                               for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=ascii_only)


def python(v: Any) -> Any:
    """``v`` as a Python caller would pass it (:class:`Raw` → its value)."""
    if isinstance(v, Raw):
        return v.value
    if isinstance(v, list):
        return [python(x) for x in v]
    if isinstance(v, dict):
        return {k: python(x) for k, x in v.items()}
    return v


def strings_of(v: Any) -> list[str]:
    """Every string in ``v``, object keys included."""
    out, stack = [], [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            stack += [*x.keys(), *x.values()]
        elif isinstance(x, list):
            stack += x
    return out


def unusable(v: Any) -> bool:
    """Rule: a field holding a non-finite or oversized number, a lone surrogate or more than
    100 levels of nesting (the record being level 1) is bad, whatever the field."""
    stack = [(v, 1)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, Raw) or (isinstance(x, str) and _SURROGATE.search(x)):
            return True
        if isinstance(x, (list, dict)):
            if depth + 1 > 100:
                return True
            stack += [(y, depth + 1) for y in (x.values() if isinstance(x, dict) else x)]
            stack += [(k, depth) for k in (x if isinstance(x, dict) else ())]
    return False


# ------------------------------------------------------------------------------ the rules
class Bad(Exception):
    """The oracle's verdict: this field's value breaks the rules."""


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def string_list(v: Any, r: dict[str, Any]) -> list[str]:
    """selection, multilabel: a JSON array of strings (duplicates kept as given)."""
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise Bad
    return v


TRUE, FALSE = {"true", "t", "yes", "y", "1"}, {"false", "f", "no", "n", "0"}


def boolean(v: Any, r: dict[str, Any]) -> bool:
    """judgment: true/false, 0/1, or one of the words (case and outer spaces ignored)."""
    if isinstance(v, bool):
        return v
    if is_int(v) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in TRUE | FALSE:
        return v.strip().lower() in TRUE
    raise Bad


def text(v: Any, r: dict[str, Any]) -> str:
    """generation's prediction: a string."""
    if not isinstance(v, str):
        raise Bad
    return v


def references(v: Any, r: dict[str, Any]) -> list[str]:
    """generation's gold: a string, or a non-empty array of strings."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        return v
    raise Bad


def spans(v: Any, r: dict[str, Any]) -> list[dict[str, Any]]:
    """spans: objects {start, end, type, text} (other keys dropped); integer offsets,
    0 <= start < end; a string type (empty: the item is invalid, not the file) and non-empty
    text; with a string ``query``, end <= len(query) and text == query[start:end]."""
    if not isinstance(v, list):
        raise Bad
    q = r.get("query")
    out = []
    for s in v:
        if not isinstance(s, dict) or not {"start", "end", "type", "text"} <= s.keys():
            raise Bad
        start, end, typ, txt = s["start"], s["end"], s["type"], s["text"]
        if not (is_int(start) and is_int(end) and 0 <= start < end):
            raise Bad
        if not (isinstance(typ, str) and isinstance(txt, str) and txt):
            raise Bad
        if isinstance(q, str) and (end > len(q) or q[start:end] != txt):
            raise Bad
        out.append({"start": start, "end": end, "type": typ, "text": txt})
    return out


def calls(v: Any, r: dict[str, Any]) -> list[dict[str, Any]]:
    """function-call (seed, and the gold of every format): an array (null is bad) of objects
    with a string ``name`` and an optional object ``arguments``; kept as given."""
    if not isinstance(v, list):
        raise Bad
    for c in v:
        if not (isinstance(c, dict) and isinstance(c.get("name"), str)
                and isinstance(c.get("arguments", {}), dict)):
            raise Bad
    return v


def tool_calls(v: Any, r: dict[str, Any]) -> Any:
    """function-call --format openai predictions: null = no call (as the API writes it); each
    call an object with a string name (under ``function`` or not); arguments a JSON object or
    text holding one (blank = {}); arguments that are no object, or text that is no strict
    JSON object, make the prediction unparseable (kept, never credited)."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise Bad
    out, unparseable = [], False
    for tc in v:
        fn = tc.get("function", tc) if isinstance(tc, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise Bad
        args = fn.get("arguments", "{}")
        if isinstance(args, str):
            args = ARGUMENT_TEXTS.get(args, UNPARSEABLE) if args.strip() else {}
        if not isinstance(args, dict):
            unparseable = True
        out.append({"name": fn["name"], "arguments": args})
    return UNPARSEABLE if unparseable else out


ARGUMENT_TEXTS: dict[str, Any] = {
    '{"x": 1}': {"x": 1}, '{"x": "北京", "n": [1, 2.5]}': {"x": "北京", "n": [1, 2.5]},
    '{"x": NaN}': UNPARSEABLE, '{"x": 1e999}': UNPARSEABLE, '{"x": -Infinity}': UNPARSEABLE,
    "{": UNPARSEABLE, "[1]": UNPARSEABLE, '"x"': UNPARSEABLE, "null": UNPARSEABLE,
    '{"x": "\\ud800"}': UNPARSEABLE, '{"x": 1, "x": 2}': UNPARSEABLE}
"""Model-written argument texts and what they decode to (strict JSON objects only)."""

# ------------------------------------------------------------------------------ values per task
@dataclass(frozen=True)
class Spec:
    """One task's input: its field names, the oracle of each side, and the values of each side:
    well-formed (``good_*``) and near misses (``near_*``), drawn from :class:`Values`."""

    task: str
    pred_field: str
    truth_field: str
    pred: Callable[[Any, dict[str, Any]], Any]
    truth: Callable[[Any, dict[str, Any]], Any]
    good_pred: Callable[[Values], Any]
    good_truth: Callable[[Values], Any]
    near_pred: list[Any]
    near_truth: list[Any]
    options: Any = None


LABELS = ["billing", "账户", "", " a ", "e\u0301", "1"]
NEAR_LABELS = [[1, 2], ["a", 1], [["a"]], [None], [True], {"a": 1}, [1.5], [BAD_NUMBERS[0]],
               None, 3, ["x" * (DEFAULT_MAX_CHARS + 1)], "billing"]
BOOLS = [True, False, 0, 1, "true", "F", " yes ", "N", "1", "0", "TRUE", "t\u3000", "y", "no",
         "Yes\n"]
NEAR_BOOLS = [[True], [], 2, -1, 1.0, 0.0, "maybe", "", "ja", "１", "true\x00", "ＹＥＳ",
              [[False]], {"v": True}, BAD_NUMBERS[1], None, "tru e"]
NEAR_STRINGS = [["a", 1], "x", True, [["a"]], [None], {"a": "b"}, 3, None,
                ["x" * (DEFAULT_MAX_CHARS + 1)], ["\ud800"], [1.5]]
NEAR_CALLS = [None, {}, "f()", [{"name": 1}], [{"arguments": {}}], [1], [None],
              [{"name": "f", "arguments": []}], [{"name": "f", "arguments": "{}"}],
              [{"name": "f", "arguments": {"x": BAD_NUMBERS[0]}}],
              [{"name": "f", "arguments": {"x": "x" * (DEFAULT_MAX_CHARS + 1)}}]]
NEAR_TOOL_CALLS = [{}, "f()", [1], [{"function": None}], [{"function": {}}],
                   [{"function": {"name": 2}}], [[]], 0]


def strings(v: Values) -> list[str]:
    return [v.text(clean=True) for _ in range(v.r.randint(0, 2))]


def call(v: Values) -> dict[str, Any]:
    """A seed-format call: a name, maybe arguments, maybe another key."""
    c: dict[str, Any] = {"name": v.pick(["f", "light_control", "", "é"])}
    if v.chance(0.8):
        c["arguments"] = {v.pick(["x", "room", "é"]): v.scalar(clean=True)
                          for _ in range(v.r.randint(0, 2))}
    if v.chance(0.2):
        c["id"] = "call_1"
    return c


def tool_call(v: Values) -> dict[str, Any]:
    """An OpenAI tool call (wrapped in ``function`` or not), its arguments text, an object,
    or no object at all."""
    k = v.r.random()
    args = (v.pick([*ARGUMENT_TEXTS, "", "  "]) if k < 0.6 else
            {"x": v.scalar(clean=True)} if k < 0.9 else v.pick([[1], None, 3]))
    fn = {"name": v.pick(["f", "g"]), "arguments": args}
    return {"id": "c1", "type": "function", "function": fn} if v.chance(0.5) else fn


def calls_of(make: Callable[[Values], Any]) -> Callable[[Values], list[Any]]:
    return lambda v: [make(v) for _ in range(v.r.randint(0, 2))]


SPECS = {
    "selection": Spec("selection", "pred", "truth", string_list, string_list, strings, strings,
                      NEAR_STRINGS, NEAR_STRINGS),
    "judgment": Spec("judgment", "pred", "truth", boolean, boolean, lambda v: v.pick(BOOLS),
                     lambda v: v.pick(BOOLS), NEAR_BOOLS, NEAR_BOOLS),
    "function-call": Spec("function-call", "pred_fn", "gold_fn", calls, calls, calls_of(call),
                          calls_of(call), NEAR_CALLS, NEAR_CALLS),
    "openai": Spec("function-call", "tool_calls", "gold_fn", tool_calls, calls,
                   lambda v: None if v.chance(0.15) else calls_of(tool_call)(v), calls_of(call),
                   NEAR_TOOL_CALLS, NEAR_CALLS, FunctionCallOptions(format="openai")),
    "generation": Spec("generation", "pred", "truth", text, references,
                       lambda v: v.text(clean=True),
                       lambda v: v.text(clean=True) if v.chance(0.5) else strings(v) or ["r"],
                       NEAR_STRINGS, [*NEAR_STRINGS, []]),
    "multilabel": Spec("multilabel", "pred", "truth", string_list, string_list,
                       lambda v: [v.pick(LABELS) for _ in range(v.r.randint(0, 3))],
                       lambda v: [v.pick(LABELS) for _ in range(v.r.randint(0, 3))],
                       NEAR_LABELS, NEAR_LABELS),
    "spans": Spec("spans", "pred", "truth", spans, spans, strings, strings, [], []),
}
GOOD_IDS = ["a", "b", "c", "1", 1, 2, 7, 2**70, -3, "漢", "\u2028", " ", "a/b", "x" * 5000,
            "e\u0301", "\x00"]
BAD_IDS = ["", None, True, False, 1.0, 2.5, -0.0, [1], {"id": 1}, [], *BAD_NUMBERS, "\ud800"]
BAD_QUERIES = [5, [], {}, True, "\ud800", BAD_NUMBERS[0], ["q"]]
BAD_NOTES = [*BAD_NUMBERS, nested(100), nested(120), "\ud800", {"k\udfff": 1},
             [1, [BAD_NUMBERS[1]]]]
"""Values no field may hold: non-finite or oversized numbers, 100+ levels, lone surrogates."""
MUTATIONS = ["end99", "text", "start-1", "empty", "str", "float", "bool", "missing", "type",
             "notdict", "raw", "huge"]


def span_values(v: Values, query: Any, mode: str) -> Any:
    """A span list for ``query``: spans cut from it; ``mode`` "clean": all well-formed (an
    extra key at most), "bad": one of them broken one way, "wild": any of these, or junk."""
    if mode == "wild" and v.chance(0.1):
        return v.junk()
    n = 0 if mode == "clean" and query == "" else v.r.randint(1 if mode == "bad" else 0, 2)
    broken = v.r.randrange(n) if mode == "bad" else -1
    out: list[Any] = []
    for k in range(n):
        if isinstance(query, str) and query and (mode == "clean" or v.chance(0.75)):
            s = v.r.randrange(len(query))
            e = v.r.randint(s + 1, len(query))
            span: Any = {"start": s, "end": e, "type": v.pick(["PER", "LOC"]),
                         "text": query[s:e]}
        else:
            span = {"start": 0, "end": 3, "type": "PER", "text": "abc"}
        how = (v.pick(MUTATIONS) if k == broken else
               v.pick([None] * 8 + ["extra"] + MUTATIONS * (mode == "wild")))
        if how in ("end99", "huge", "empty"):
            span["end"] = {"end99": 99, "huge": 10**30, "empty": span["start"]}[how]
        elif how == "text":
            span["text"] += "x"
        elif how == "start-1":
            span["start"] = -1
        elif how in ("str", "float", "bool", "raw"):
            span["start"] = {"str": "0", "float": 0.0, "bool": False, "raw": BAD_NUMBERS[2]}[how]
        elif how == "missing":
            del span["text"]
        elif how == "type":
            span["type"] = v.pick(["", 1, None])
        elif how == "extra":
            span["score"] = v.scalar(clean=True)
        out.append(v.junk() if how == "notdict" else span)
    return out


def side_value(v: Values, spec: Spec, side: str, query: Any, mode: str) -> Any:
    """A value of one side (``pred``/``truth``): ``mode`` clean, bad or wild."""
    if spec.task == "spans":
        return span_values(v, query, mode)
    good, near = ((spec.good_pred, spec.near_pred) if side == "pred"
                  else (spec.good_truth, spec.near_truth))
    k = v.r.random()
    if mode == "clean" or (mode == "wild" and k < 0.5):
        return good(v)
    return v.pick(near) if k < 0.75 else v.junk()


SHAPES = st.sampled_from([
    (has_id, has_query, missing, note, twice, turn)
    for has_id in (True, False) for has_query in (True, False)
    for missing in (None,) * 7 + ("pred", "truth") for note in (None,) * 4 + (1,)
    for twice in (False,) * 7 + (True,) for turn in (0, 1, 2)])
"""A record's shape in one draw: id (when only some records have one), query, a missing field
and a key given twice (wild records), a field no task reads, where the fields start."""
FAULTS = ["id", "id", "duplicate id", "no id", "query", "pred", "pred", "truth", "truth",
          "missing", "note", "twice"]
"""Where a file of well-formed records gets its one fault."""


def _put(pairs: list[tuple[str, Any]], key: str, value: Any) -> None:
    """Set ``key`` in a record's pairs (replaced where it is, else appended)."""
    for i, (k, _) in enumerate(pairs):
        if k == key:
            pairs[i] = (key, value)
            return
    pairs.append((key, value))


@st.composite
def files(draw: st.DrawFn, spec: Spec) -> list[list[tuple[str, Any]]]:
    """1–3 records, each a list of (key, value) pairs (a key may repeat: duplicate keys): all
    well-formed (1 in 4), well-formed but for one fault (1 in 2), or anything (1 in 4)."""
    v = Values(draw(st.randoms(use_true_random=True)))
    mode = draw(st.sampled_from(["clean", "one", "one", "wild"]))
    wild = mode == "wild"
    ids = draw(st.sampled_from(["all", "all", "all", "none"] + ["some"] * wild))
    out = []
    for _ in range(draw(st.sampled_from([1, 2, 2, 3]))):
        has_id, has_query, missing, note, twice, turn = draw(SHAPES)
        pairs: list[tuple[str, Any]] = []
        if ids == "all" or (ids == "some" and has_id):
            k = v.r.random()
            pairs.append(("id", v.pick(BAD_IDS) if wild and k < 0.3 else
                          v.pick(GOOD_IDS) if k < 0.7 else
                          v.odd(clean=not wild, min_size=1) if k < 0.9 else v.number()))
        query: Any = ...
        if has_query:
            query = (v.junk() if wild and v.chance(0.3) else
                     None if v.chance(0.1) else v.text(clean=not wild))
            pairs.append(("query", query))
        for side, name in (("pred", spec.pred_field), ("truth", spec.truth_field)):
            if not wild or missing != side:
                pairs.append((name, side_value(v, spec, side, query, mode if wild else "clean")))
        if note:
            pairs.append((v.pick(NOTE_KEYS), v.junk(clean=not wild)))
        if wild and twice:
            pairs.append((pairs[turn % len(pairs)][0], v.scalar()))
        turn %= len(pairs) or 1
        out.append(pairs[turn:] + pairs[:turn])
    if mode == "one":
        k = draw(st.integers(0, len(out) - 1))
        pairs, fault = out[k], draw(st.sampled_from(FAULTS))
        if fault == "id":
            _put(pairs, "id", v.pick(BAD_IDS))
        elif fault == "duplicate id" and ids == "all" and len(out) > 1:
            _put(pairs, "id", dict(out[k - 1])["id"])
        elif fault == "no id" and ids == "all" and len(out) > 1:
            pairs.remove(("id", dict(pairs)["id"]))
        elif fault == "query":
            _put(pairs, "query", v.pick(BAD_QUERIES) if v.chance(0.7) else v.junk())
        elif fault in ("pred", "truth"):
            name = spec.pred_field if fault == "pred" else spec.truth_field
            _put(pairs, name, side_value(v, spec, fault, dict(pairs).get("query", ...), "bad"))
        elif fault == "missing":
            gone = v.pick([spec.pred_field, spec.truth_field])
            pairs[:] = [(key, x) for key, x in pairs if key != gone]
        elif fault == "note":
            pairs.append((v.pick(NOTE_KEYS), v.pick(BAD_NOTES)))
        elif pairs:  # a key given twice
            pairs.append((pairs[0][0], v.scalar(clean=True)))
    return out


Fault = tuple[int, str]


def expected(spec: Spec, recs: list[list[tuple[str, Any]]], path: str
             ) -> tuple[set[Fault], list[tuple[Any, ...]]]:
    """The faults (line, field) the rules find in the records, and the items when none."""
    faults: set[Fault] = set()
    rows = [dict(pairs) for pairs in recs]
    for n, pairs in enumerate(recs, start=1):
        keys = [k for k, _ in pairs]
        faults |= {(n, k) for k, v in pairs if unusable(v) or keys.count(k) > 1}
    has = ["id" in r for r in rows]
    ids: list[str] = [f"line{n}" for n in range(1, len(rows) + 1)]
    if all(has):
        seen: set[str] = set()
        for n, r in enumerate(rows, start=1):
            v = r["id"]
            ok = (isinstance(v, str) and v != "") or is_int(v)
            ids[n - 1] = str(v)
            if not ok or ids[n - 1] in seen:
                faults.add((n, "id"))
            seen.add(ids[n - 1])
    elif any(has):
        faults.add((has.index(False) + 1, "id"))
    items = []
    for n, r in enumerate(rows, start=1):
        q = r.get("query")
        if q is not None and not isinstance(q, str):
            faults.add((n, "query"))
        got = []
        for field, rule in ((spec.pred_field, spec.pred), (spec.truth_field, spec.truth)):
            try:
                if field not in r:
                    raise Bad
                value = rule(r[field], r)
                if any(len(s) > DEFAULT_MAX_CHARS for s in strings_of(value)):
                    raise Bad
                got.append(value)
            except Bad:
                faults.add((n, field))
        if len(got) == 2:
            items.append((ids[n - 1], f"{path}:{n}", *got, q if isinstance(q, str) else ""))
    return faults, items


def shown(items: list[Any]) -> list[tuple[Any, ...]]:
    return [(i.id, i.source, UNPARSEABLE if isinstance(i.pred, Unparseable) else i.pred,
             i.truth, i.query) for i in items]


def check(spec: Spec, recs: list[list[tuple[str, Any]]], folder: Path, ascii_only: bool) -> None:
    """The file's reading (and the dicts' when no key repeats) against the rules."""
    path = fresh(folder, "data.jsonl")
    has_surrogate = any(_SURROGATE.search(s) for p in recs for _, v in p for s in strings_of(v))
    lines = ["{" + ", ".join(json.dumps(k) + ": " + dump(v, ascii_only or has_surrogate)
                             for k, v in pairs) + "}" for pairs in recs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = [(str(path), lambda: get_task(spec.task).load(Source(path), spec.options))]
    if spec.options is None and all(len({k for k, _ in p}) == len(p) for p in recs):
        dicts = [python(dict(p)) for p in recs]
        runs.append(("<items>", lambda: get_task(spec.task).from_dicts(dicts)))
    for where, read in runs:
        faults, items = expected(spec, recs, where)
        try:
            got = read()
        except InputError as exc:
            assert faults, f"rejected well-formed input: {exc}\n{lines}"
            assert exc.path == where and exc.line is not None, str(exc)
            assert (exc.line, exc.field) in faults, f"{exc} not in {sorted(faults)}\n{lines}"
            assert "\n" not in str(exc) and "\r" not in str(exc), str(exc)
        else:
            assert not faults, f"accepted bad input {sorted(faults)}: {shown(got)}\n{lines}"
            assert repr(shown(got)) == repr(items), lines


_COUNT = itertools.count()


def fresh(folder: Path, name: str) -> Path:
    """A new file name in ``folder`` for each example: truncating a file to rewrite it costs
    milliseconds on ext4 (it flushes the old data first), a new file a tenth of that."""
    return folder / f"{next(_COUNT)}-{name}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_every_task_is_fuzzed() -> None:
    assert {s.task for s in SPECS.values()} | {"ranking"} == set(task_names())


def _fuzz(*names: str) -> Callable[..., None]:
    """The fuzz test of one task: its records (of one of its input formats, ``names``)."""
    example = st.one_of(*(st.tuples(st.just(SPECS[n]), files(SPECS[n])) for n in names))

    @FUZZ
    @given(example=example, ascii_only=st.booleans())
    def run(folder: Path, example: tuple[Spec, list[list[tuple[str, Any]]]],
            ascii_only: bool) -> None:
        check(*example, folder, ascii_only)

    return run


test_selection_reader = _fuzz("selection")
test_judgment_reader = _fuzz("judgment")
test_function_call_reader = _fuzz("function-call", "openai")  # --format seed and openai
test_generation_reader = _fuzz("generation")
test_multilabel_reader = _fuzz("multilabel")
test_spans_reader = _fuzz("spans")


# ------------------------------------------------------------------------------ ranking
QIDS = ["q1", "q2", "301", "q\u00a0x", "查询", "q1\u3000", "\x85", "q\x0bq", "𝔮"]
DOCS = ["d1", "d2", "d3", "doc\u00a0a", "ｄ1", "d\x00", "d\u2028", "D1"]
"""Query and document ids; non-ASCII whitespace and control characters are part of an id."""
SCORES = ([(x, True) for x in ["1", "-3", "0", "2.5", "1e-3", ".5", "5.", "+2", "-0", "1E5",
                               "007", "1e308", "-1.7976931348623157e+308", "5e-324",
                               "0.30000000000000004", "123456789012345678901234567890"]]
          + [(x, False) for x in ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999",
                                  "-1e400", "1_0", "０.５", "0x10", "abc", "1,5", "١", "--1",
                                  "1e", ".", "½"]])
"""Run scores (text, well-formed): decimal numbers, and what is not a finite one."""
GRADES = ([(x, True) for x in ["0", "1", "2", "-1", "4", "+1", "-0", "007", "1000", "-1000"]]
          + [(x, False) for x in ["1.0", "x", "1_0", "١", "1001", "-1001", "2e1", "nan", "0x1",
                                  "99999999999999999999", "１"]])
"""Qrels grades (text, well-formed)."""


def trec_lines(v: Values, n: int, kind: str) -> list[tuple[list[str], str | None]]:
    """``n`` lines of a run (``kind`` "run") or qrels file: (fields, None) for a line of the
    right width whose number is well-formed, else (fields, the bad field's name or "width")."""
    out: list[tuple[list[str], str | None]] = []
    for _ in range(n):
        qid, doc = v.pick(QIDS), v.pick(DOCS)
        if kind == "run":
            number, ok = (repr(v.number()), True) if v.chance(0.3) else v.pick(SCORES)
            fields = [qid, "Q0", doc, "1", number, "run\u00a0tag"]
        else:
            number, ok = (str(v.r.randint(-1000, 1000)), True) if v.chance(0.3) else v.pick(GRADES)
            fields = [qid, "0", doc, number]
        bad = None if ok else ("score" if kind == "run" else "grade")
        how = v.pick([None] * 12 + ["drop", "add", "blank"])
        if how == "drop":
            fields.pop(v.r.randrange(len(fields)))
            bad = "width"
        elif how == "add":  # a run's extra fields are ignored, as trec_eval ignores them
            fields.append("x")
            bad = bad if kind == "run" else "width"
        elif how == "blank":
            fields, bad = [], None
        out.append((fields, bad))
    return out


def trec_style(v: Values) -> tuple[str, str, str, str]:
    """A TREC file's byte-order mark, field separator, line indent and line end."""
    return (v.pick(["", "\ufeff"]), v.pick([" ", "\t", "  ", " \t "]), v.pick(["", " ", "\t"]),
            v.pick(["\n", "\r\n"]))


def trec_text(lines: list[tuple[list[str], str | None]], style: tuple[str, str, str, str]) -> str:
    """The file's text: fields joined by a run of spaces/tabs, \\n or \\r\\n line ends, maybe a
    byte-order mark, blank lines as nothing or as spaces."""
    bom, gap, pad, end = style
    return bom + "".join(pad + gap.join(fields) + end for fields, _ in lines)


def trec_faults(path: str, lines: list[tuple[list[str], str | None]], width: int,
                ) -> tuple[set[tuple[str, int | None, str | None]], dict[str, dict[str, str]]]:
    """The faults of one TREC file, and its values: query → doc → score/grade text."""
    faults: set[tuple[str, int | None, str | None]] = set()
    values: dict[str, dict[str, str]] = {}
    for n, (fields, bad) in enumerate(lines, start=1):
        if not fields:
            continue
        if bad is not None or len(fields) < width or (len(fields) > width and width != 6):
            faults.add((path, n, None if bad == "width" else bad))
            continue
        qid, doc, value = fields[0], fields[2], fields[4 if width == 6 else 3]
        if doc in values.setdefault(qid, {}):
            faults.add((path, n, "doc_id"))
        values[qid][doc] = value
    return faults, values


@FUZZ
@given(rnd=st.randoms(use_true_random=True), runs=st.integers(1, 5), judged=st.integers(1, 5))
def test_ranking_reader(folder: Path, rnd: random.Random, runs: int, judged: int) -> None:
    v = Values(rnd)
    run_lines, qrel_lines = trec_lines(v, runs, "run"), trec_lines(v, judged, "qrels")
    run, qrels = fresh(folder, "run.txt"), fresh(folder, "qrels.txt")
    run.write_text(trec_text(run_lines, trec_style(v)), encoding="utf-8")
    qrels.write_text(trec_text(qrel_lines, trec_style(v)), encoding="utf-8")
    faults, scores = trec_faults(str(run), run_lines, 6)
    qfaults, grades = trec_faults(str(qrels), qrel_lines, 4)
    faults |= qfaults
    items = [(q, sorted(docs, key=lambda d: (float(docs[d]), d), reverse=True),
              {d: int(g) for d, g in grades[q].items()})
             for q, docs in scores.items() if q in grades]
    if not items:
        faults.add((str(run), None, None))
    try:
        got = get_task("ranking").load(Source(run, qrels))
    except InputError as exc:
        assert (exc.path, exc.line, exc.field) in faults, f"{exc} not in {sorted(faults, key=str)}"
        assert "\n" not in str(exc) and "\r" not in str(exc), str(exc)
    else:
        assert not faults, f"accepted bad input {sorted(faults, key=str)}"
        assert [(i.id, i.pred, i.truth) for i in got] == items
