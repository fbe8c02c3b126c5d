"""The opposite guard's stemmer (issue 34 item 5): Snowball's Porter (PyStemmer) in place of
``nltk.stem.PorterStemmer``, whose import pulled all of nltk into every ``--judge local``
process. The reference is nltk's stemmer itself (a dependency for BLEU and ROUGE): the guard
run with it and with ours must decide alike on the lexicon and on every pair of the shipped
examples; the few words on which the two stemmers match different lexicon words are pinned
here, as the module docstring of :mod:`judge.judges.embedding.opposites` lists them.
"""

from __future__ import annotations

import csv
import itertools
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from judge.judges.embedding import opposites as op
from tests.conftest import EXAMPLES, REPO

LEXICON = REPO / "judge" / "judges" / "embedding" / "opposites.tsv"


def _clear() -> None:
    for cached in (op._analyse, op._term_side, op.default_lexicon):
        cached.cache_clear()


@pytest.fixture
def with_nltk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], Any]], Any]]:
    """``with_nltk(f)``: ``f()`` run with the guard stemming by nltk's PorterStemmer (its
    default NLTK_EXTENSIONS mode, what the guard used before); caches emptied before and
    after, so no other test sees nltk's stems."""
    from nltk.stem import PorterStemmer

    nltk = SimpleNamespace(stemWord=PorterStemmer().stem)

    def run(f: Callable[[], Any]) -> Any:
        with monkeypatch.context() as m:
            m.setattr(op, "_stemmer", lambda: nltk)
            _clear()
            try:
                return f()
            finally:
                _clear()

    yield run
    _clear()


def _english_forms() -> list[str]:
    forms = []
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        if line.startswith("term\t"):
            forms += [f for side in line.split("\t")[1:] for f in side.split("|")
                      if f and not op._CJK.search(f)]
    return list(dict.fromkeys(forms))


def _leaves(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v)


def _example_records() -> list[list[str]]:
    """The strings of each row of every shipped example (JSON lines: every string value; TSV:
    every cell)."""
    records = []
    for path in sorted(EXAMPLES.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            records.append(list(dict.fromkeys(_leaves(json.loads(line)))))
    for path in sorted(EXAMPLES.rglob("*.tsv")):
        with path.open(encoding="utf-8", newline="") as f:
            records += [list(dict.fromkeys(row)) for row in csv.reader(f, delimiter="\t")]
    return records


def _pairs() -> list[tuple[str, str]]:
    """Every ordered pair of short strings within one example row, and the lexicon's own: each
    form against each form of its entry (both orders), alone and inside a phrase."""
    pairs: set[tuple[str, str]] = set()
    for strings in _example_records():
        pairs.update(itertools.permutations([s for s in strings if len(s) <= op.MAX_LEN], 2))
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        if line.startswith(("term\t", "char\t")):
            a, b = (side.split("|") for side in line.split("\t")[1:])
            for x, y in itertools.chain(itertools.product(a, b), itertools.combinations(a + b, 2)):
                pairs.update({(x, y), (y, x), (f"User {x}", f"user {y}"),
                              (f"{x.title()}Account", f"{y}_account")})
    return sorted(pairs)


def test_lexicon_forms_share_keys_alike(with_nltk: Callable[[Callable[[], Any]], Any]) -> None:
    forms = _english_forms()

    def partition() -> set[frozenset[str]]:
        groups: dict[str, set[str]] = {}
        for f in forms:
            groups.setdefault(op._form_key(f), set()).add(f)
        return {frozenset(g) for g in groups.values()}

    ours = partition()
    assert len(forms) == 284 and len(ours) == 275  # "open"/"opening", "fail"/"failed"…
    assert with_nltk(partition) == ours
    assert {frozenset({"close", "closing"}), frozenset({"expense", "expensive"})} <= ours


def test_decisions_equal_nltk_on_the_examples_and_the_lexicon(
        with_nltk: Callable[[Callable[[], Any]], Any]) -> None:
    pairs = _pairs()
    ours = [op.find_opposition(a, b) for a, b in pairs]
    theirs = with_nltk(lambda: [op.find_opposition(a, b) for a, b in pairs])
    differ = [(p, t, o) for p, t, o in zip(pairs, theirs, ours, strict=True) if t != o]
    assert differ == []
    opposed = sum(o is not None for o in ours)
    assert len(pairs) > 20_000 and opposed > 2_000, (len(pairs), opposed)


def test_the_words_of_the_examples_match_the_same_lexicon_words_but_two(
        with_nltk: Callable[[Callable[[], Any]], Any]) -> None:
    """Per word: which lexicon words share its stem. Only "Dai" (a name, AM2iCo: Snowball
    turns a final y after a vowel into i, so it meets "day") and "peacefully" (nltk's extra
    fulli→ful rule: "peac", as "peace") differ; neither decides any pair of the examples."""
    words = sorted({w for r in _example_records() for s in r
                    for w in op._WORD.findall(op._CJK.sub(" ", op._normalise(s)))})
    lexicon_words = sorted({w for f in _english_forms() for w in op._WORD.findall(f.lower())})

    def matches() -> dict[str, frozenset[str]]:
        by_stem: dict[str, set[str]] = {}
        for w in lexicon_words:
            by_stem.setdefault(op._stem(w), set()).add(w)
        return {w: frozenset(by_stem.get(op._stem(w), ())) for w in words}

    ours, theirs = matches(), with_nltk(matches)
    assert len(words) > 2_000
    assert {w: (sorted(theirs[w]), sorted(ours[w])) for w in words if ours[w] != theirs[w]} == {
        "dai": ([], ["day"]), "peacefully": (["peace"], [])}


@pytest.mark.parametrize(("word", "nltk_stem", "snowball_stem"), [
    ("successfully", "success", "successfulli"),  # nltk's fulli→ful
    ("visibly", "visibl", "visibli"),  # nltk's bli→ble
    ("news", "news", "new"),  # nltk's irregular forms
    ("outing", "outing", "out"),
    ("one", "one", "on"),  # nltk: a two-letter stem "on" ends cvc, so its e stays
    ("dry", "dri", "dry"),  # Porter: y→i only after a stem with a vowel
    ("day", "day", "dai"),  # nltk: y→i only after a consonant
    ("added", "ad", "ad"),  # both: Porter (1980) undoubles dd
])
def test_the_documented_stem_differences(with_nltk: Callable[[Callable[[], Any]], Any],
                                         word: str, nltk_stem: str, snowball_stem: str) -> None:
    assert op._stem(word) == snowball_stem
    assert with_nltk(lambda: op._stem(word)) == nltk_stem


@pytest.mark.parametrize(("pred", "truth", "nltk_term", "snowball_term"), [
    # a decision that changed: why the guard's identity names its stemmer
    ("Logged in successfully", "Login failed", ("success", "fail"), None),
    ("News feed", "Old posts", None, ("new", "old")),
])
def test_decisions_that_differ(with_nltk: Callable[[Callable[[], Any]], Any], pred: str,
                               truth: str, nltk_term: tuple[str, str] | None,
                               snowball_term: tuple[str, str] | None) -> None:
    def terms() -> tuple[str, str] | None:
        o = op.find_opposition(pred, truth)
        return None if o is None else (o.pred_term, o.truth_term)

    assert terms() == snowball_term
    assert with_nltk(terms) == nltk_term


def test_local_judge_process_imports_no_nltk(tmp_path: Path) -> None:
    """What a user's ``simjudge eval --judge local`` imports: a real process (sys.modules is
    the process's), the guard exercised on an opposed pair."""
    data = tmp_path / "items.jsonl"
    data.write_text(json.dumps({"id": "1", "pred": ["Enabled accounts"],
                                "truth": ["disable account"]}) + "\n", encoding="utf-8")
    code = ("import sys\nfrom judge.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert e.code == 0, e\n"
            "print(sorted(m for m in ('nltk', 'Stemmer') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code, "eval", str(data), "--judge", "local",
                           "--out", str(tmp_path / "run"), "--cache-mode", "off",
                           "--bootstrap", "0", "--quiet"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "['Stemmer']"
    verdict = json.loads((tmp_path / "run" / "verdicts.jsonl").read_text(encoding="utf-8"))
    assert verdict["score"] == op.CAP
    assert json.loads(verdict["raw"])["opposition"] == ["enable", "disable", "term"]
