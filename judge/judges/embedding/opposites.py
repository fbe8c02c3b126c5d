"""Opposite-term guard of the ``local`` judge: short items that differ by an opposite term.

An embedding places "User Login" and "User Logout" (cosine 0.88) or 开灯 and 关灯 (0.80) close
together: they share everything but the one word that makes them opposites. The guard finds
such pairs with a small hand-written en+zh lexicon (``opposites.tsv``, its header gives source
and licence) and the ``local`` judge caps their score at :data:`CAP`, below any sensible τ,
saying so in the rationale.

A pair (pred, truth) is *opposed* when both are short items (at most :data:`MAX_WORDS` words and
:data:`MAX_CJK` CJK characters — the guard is for names and phrases; in a sentence an antonym
is often a paraphrase: "A is bigger than B" = "B is smaller than A") and either

* **term rule**: for some lexicon entry (A, B), one side mentions A but not B and the other
  mentions B but not A. English forms match whole words after Porter stemming (Snowball's
  ``porter`` algorithm, :data:`STEMMER`: "Enabled" = "enable"), identifiers are split first
  (``USER_LOGIN``, ``userLogin`` → user login), multi-word forms match as word sequences;
  Mandarin forms (two characters or more) match as substrings, longest first, a matched span
  being consumed (退出登录 is a logout, not a login); the rule works across languages
  ("User Login" / "用户注销"); or
* **minimal-pair rule**: the two Mandarin strings have the same length and differ only at
  positions holding an opposite character pair of the lexicon (开灯/关灯, 上升/下降).

Source of the idea: the antonym failure of distributional similarity (e.g. Mohammad et al.
2013, "Computing lexical contrast", Computational Linguistics 39(3)); the lexicon is ours.

**The stemmer.** Porter's algorithm (M. F. Porter 1980, "An algorithm for suffix stripping",
Program 14(3)) as Snowball defines it, run by PyStemmer (Snowball's C stemmers: 2 ms to
import, ~1 µs a word). It replaced ``nltk.stem.PorterStemmer`` (default NLTK_EXTENSIONS mode),
whose import pulls all of nltk (1.5–8 s and ~200 MB in every ``--judge local`` process).
``python benchmarks/opposites_stemmer.py`` compares the two: they split the lexicon's 284
English forms into the same 275 keys and decide alike on all 440,328 pairs of the shipped
examples, ../shared/data, the lexicon and benchmarks/bench_local_judge.py; of 293,154 English
words (those data, the docs, two word lists, the lexicon's inflections) 28 real words match
other lexicon words, all from nltk's departures from Porter (1980): *-fully* and *-ibly* words
("successfully", "peacefully", "visibly": nltk's extra ``fulli``→``ful`` and ``bli``→``ble``
rules matched them to "success", "peace", "visible"; now nothing), "news", "outing", "inning"
(nltk's irregular forms; now "new", "out", "in"), "one(s)" and "ine" (nltk keeps the e of a
two-letter stem; now "on"/"in", which occur only inside "turn on", "log in"…), "dried" (no
longer "dry") and "dai(s)", "bois" (now "day", "boy": Snowball turns a y after a vowel into
i). A decision can thus change ("Logged in successfully"/"Login failed" was opposed, "News
feed"/"Old posts" now is), so the guard's identity (:func:`judge.judges.identity.judge_identity`)
names :data:`STEMMER` and a τ calibrated with the nltk-stemmed guard is reported stale.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import Any

STEMMER = "snowball-porter"
"""The English stemmer: Snowball's ``porter`` algorithm (PyStemmer); part of the guard's
identity, as its decisions depend on it (see the module docstring)."""
CAP = 0.2
"""Score given to an opposed pair whose score was higher (in [0, 1], below the default τ 0.7)."""
MAX_WORDS = 8
"""Most words (Latin-script tokens) an item may have for the guard to look at it."""
MAX_CJK = 16
"""Most CJK characters an item may have for the guard to look at it."""
MAX_LEN = 256
"""Most characters an item may have (checked first, so a huge field costs nothing and the
per-string caches hold only short strings)."""

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass(frozen=True)
class Opposition:
    """Why a pair is opposed.

    Attributes:
        pred_term, truth_term: the opposite forms found in pred and in truth, as written in the
            lexicon (term rule) or the differing characters (minimal-pair rule).
        rule: ``term`` or ``minimal-pair``.
    """

    pred_term: str
    truth_term: str
    rule: str

    def describe(self) -> str:
        """E.g. ``opposite terms "login" / "logout" (term rule)``."""
        return f'opposite terms "{self.pred_term}" / "{self.truth_term}" ({self.rule} rule)'


@dataclass(frozen=True, eq=False)  # identity hash: the lexicon is a cache key
class Lexicon:
    """The parsed lexicon.

    Attributes:
        terms: entries ``(forms_a, forms_b)``, each side a tuple of normalised forms.
        chars: opposite single CJK characters, both directions (``{"开": {"关"}, "关": {"开"}}``).
        display: normalised form → the form as written in the lexicon ("enabl" → "enable").
        index: normalised form → the ``(entry, side)`` places it stands in.
        cjk_forms: the Mandarin forms, longest first.
        longest: most words in an English form.
    """

    terms: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    chars: dict[str, frozenset[str]]
    display: dict[str, str]
    index: dict[str, tuple[tuple[int, int], ...]]
    cjk_forms: tuple[str, ...]
    longest: int


_THREAD = threading.local()


def _stem(word: str) -> str:
    """The Porter stem of one lower-case word (PyStemmer keeps its own cache of recent words)."""
    return str(_stemmer().stemWord(word))


def _stemmer() -> Any:
    """This thread's ``Stemmer.Stemmer("porter")`` (a PyStemmer object is not thread-safe)."""
    stemmer = getattr(_THREAD, "stemmer", None)
    if stemmer is None:
        import Stemmer  # PyStemmer; imported on first use

        stemmer = _THREAD.stemmer = Stemmer.Stemmer("porter")
    return stemmer


def _normalise(text: str) -> str:
    """NFKC, identifiers split (camelCase, snake_case), lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = _CAMEL.sub(" ", text).replace("_", " ")
    return text.lower()


def _form_key(form: str) -> str:
    """A lexicon form as matched: Mandarin as is, English as its stemmed words joined by spaces."""
    if _CJK.search(form):
        return form
    return " ".join(_stem(w) for w in _WORD.findall(_normalise(form)))


def parse_lexicon(text: str, source: str = "opposites.tsv") -> Lexicon:
    """Parse the lexicon format (see ``opposites.tsv``'s header).

    Args:
        text: the file's content.
        source: the file name for error messages.

    Raises:
        ValueError: a line that is not ``term<TAB>A<TAB>B`` or ``char<TAB>X<TAB>Y``, a Mandarin
            term form shorter than two characters, or a char entry that is not one CJK
            character per side (the message names the line).
    """
    terms: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    chars: dict[str, set[str]] = {}
    display: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] not in ("term", "char"):
            raise ValueError(f"{source} line {n}: expected term|char<TAB>A<TAB>B, got {line!r}")
        kind, a, b = parts
        if kind == "char":
            if not all(len(x) == 1 and _CJK.match(x) for x in (a, b)):
                raise ValueError(f"{source} line {n}: char entries are one CJK character each")
            chars.setdefault(a, set()).add(b)
            chars.setdefault(b, set()).add(a)
            continue
        sides = []
        for written in (a, b):
            forms = [f.strip() for f in written.split("|") if f.strip()]
            for f in forms:
                if _CJK.search(f) and len(f) < 2:
                    raise ValueError(f"{source} line {n}: Mandarin form {f!r} is one character "
                                     "(use a char entry)")
            keys = [(_form_key(f), f) for f in forms]
            for k, f in keys:
                display.setdefault(k, f)
            sides.append(tuple(dict.fromkeys(k for k, _ in keys if k)))
        if not sides[0] or not sides[1]:
            raise ValueError(f"{source} line {n}: a side has no form")
        terms.append((sides[0], sides[1]))
    index: dict[str, list[tuple[int, int]]] = {}
    for i, entry in enumerate(terms):
        for s, entry_forms in enumerate(entry):
            for f in entry_forms:
                index.setdefault(f, []).append((i, s))
    cjk_forms = tuple(sorted((f for f in index if _CJK.search(f)), key=len, reverse=True))
    longest = max((len(f.split()) for f in index if not _CJK.search(f)), default=1)
    return Lexicon(tuple(terms), {k: frozenset(v) for k, v in chars.items()}, display,
                   {k: tuple(v) for k, v in index.items()}, cjk_forms, longest)


@functools.lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The lexicon shipped with the package (``judge/judges/embedding/opposites.tsv``)."""
    path = resources.files("judge.judges.embedding") / "opposites.tsv"
    return parse_lexicon(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=65_536)
def _analyse(text: str) -> tuple[tuple[str, ...], str, bool]:
    """(stemmed words, the text with every non-CJK character blanked, short enough); the
    words are stemmed only for a short item."""
    norm = _normalise(text)
    words = _WORD.findall(_CJK.sub(" ", norm))
    cjk = "".join(c if _CJK.match(c) else " " for c in norm)
    n_cjk = len(cjk) - cjk.count(" ")
    short = len(words) <= MAX_WORDS and n_cjk <= MAX_CJK and bool(words or n_cjk)
    return (tuple(_stem(w) for w in words) if short else ()), cjk, short


@functools.lru_cache(maxsize=65_536)
def _term_side(text: str, lexicon: Lexicon) -> frozenset[tuple[int, int, str]]:
    """Which sides of which entries ``text`` mentions: ``{(entry, side 0|1, form)}`` — English
    forms looked up as word n-grams, Mandarin forms as substrings (longest first, each match
    consuming its span)."""
    words, cjk, _ = _analyse(text)
    found: list[str] = []
    for n in range(1, min(lexicon.longest, len(words)) + 1):
        found += [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
    if cjk.strip():
        for f in lexicon.cjk_forms:
            if f in cjk:
                found.append(f)
                cjk = cjk.replace(f, " " * len(f))
    out: set[tuple[int, int, str]] = set()
    for f in found:
        out.update((i, side, f) for i, side in lexicon.index.get(f, ()))
    # one form per (entry, side): the first in lexicon order, as written there
    first: dict[tuple[int, int], str] = {}
    for i, side, f in sorted(out, key=lambda x: (x[0], x[1],
                                                 lexicon.terms[x[0]][x[1]].index(x[2]))):
        first.setdefault((i, side), f)
    return frozenset((i, side, f) for (i, side), f in first.items())


def _minimal_pair(a: str, b: str, lexicon: Lexicon) -> Opposition | None:
    a = "".join(_CJK.findall(_normalise(a)))
    b = "".join(_CJK.findall(_normalise(b)))
    if not a or len(a) != len(b) or a == b:
        return None
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if all(y in lexicon.chars.get(x, ()) for x, y in diff):
        return Opposition("".join(x for x, _ in diff), "".join(y for _, y in diff),
                          "minimal-pair")
    return None


def find_opposition(pred: str, truth: str, lexicon: Lexicon | None = None) -> Opposition | None:
    """Whether ``pred`` and ``truth`` are opposed (see the module docstring), and why.

    Args:
        pred, truth: the two items (any script; only short items are examined).
        lexicon: default :func:`default_lexicon`.

    Returns:
        The first :class:`Opposition` found (term rule before minimal-pair rule), or None —
        always None when either item is longer than :data:`MAX_LEN` characters,
        :data:`MAX_WORDS` words or :data:`MAX_CJK` CJK characters, or the two are equal after
        normalisation.
    """
    lex = lexicon if lexicon is not None else default_lexicon()
    if len(pred) > MAX_LEN or len(truth) > MAX_LEN:
        return None
    if not (_analyse(pred)[2] and _analyse(truth)[2]):
        return None
    if _normalise(pred).split() == _normalise(truth).split():
        return None
    p, t = _term_side(pred, lex), _term_side(truth, lex)
    p_sides = {(i, s) for i, s, _ in p}
    t_sides = {(i, s) for i, s, _ in t}
    for i, s, form in sorted(p):
        other = 1 - s
        if (i, other) in t_sides and (i, other) not in p_sides and (i, s) not in t_sides:
            t_form = next(f for j, k, f in t if j == i and k == other)
            return Opposition(lex.display.get(form, form), lex.display.get(t_form, t_form),
                              "term")
    return _minimal_pair(pred, truth, lex)
