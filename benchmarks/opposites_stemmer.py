"""The opposite guard's decisions with Snowball's Porter stemmer (PyStemmer) against nltk's.

The guard (:mod:`judge.judges.embedding.opposites`) stemmed English words with
``nltk.stem.PorterStemmer`` (its default NLTK_EXTENSIONS mode) until issue 34; it now uses
PyStemmer's Snowball ``porter``. Lexicon forms and input words go through the same stemmer, so a
decision can change only where the set of lexicon forms a word matches changes. This script
prints, for each Snowball algorithm given (``porter``, ``english``) against nltk:

* (a) the partition of the lexicon's English forms (which forms share a key), and the groups
  that differ;
* (b) for every word of a large English vocabulary — the words of ``examples/``,
  ``../shared/data`` (when present) and ``docs/``, the lexicon's words and their generated
  inflections (-s, -ed, -ing, -ly, -fully, -able, -ation …), and, when the ``english-words``
  package is importable, its web2 + gcide lists (263k words; not a simjudge dependency) — the
  lexicon words whose stem it shares, and every word for which that set differs (words seen
  only as generated inflections are counted, listed with ``--all``);
* (c) :func:`~judge.judges.embedding.opposites.find_opposition` on every ordered pair of short
  strings within a row of the shipped examples and of ``../shared/data``, the lexicon's own
  pairs, and the 10,000 pairs of ``benchmarks/bench_local_judge.py``: every pair decided
  otherwise.

    python benchmarks/opposites_stemmer.py [--algorithm porter english] [--all]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
SHARED = REPO.parent / "shared" / "data"
SUFFIXES = ("s", "es", "ed", "d", "ing", "ings", "er", "ers", "est", "ly", "edly", "ingly",
            "fully", "ful", "ness", "able", "ably", "ability", "ible", "ibly", "ation", "ations",
            "ment", "ments", "ive", "ively", "ion", "ions", "al", "ally", "ize", "ized", "izing",
            "ity", "ies", "ied", "ily", "iness", "ous", "ously", "e")

from judge.judges.embedding import opposites as op  # noqa: E402


def use(stem: Callable[[str], str]) -> None:
    """Make the guard stem with ``stem`` (its caches emptied)."""
    s = SimpleNamespace(stemWord=stem)
    op._stemmer = lambda: s  # type: ignore[assignment]
    for cached in (op._analyse, op._term_side, op.default_lexicon):
        cached.cache_clear()


def words_of(text: str) -> list[str]:
    """The words the guard stems in ``text`` (identifiers split, CJK dropped)."""
    return op._WORD.findall(op._CJK.sub(" ", op._normalise(text)))


def leaves(x: Any) -> Iterator[str]:
    """Every string of a JSON value (an IFPUG ``"pred <-> gold (0.9)"`` also as its two sides)."""
    if isinstance(x, str):
        yield x
        m = re.fullmatch(r"(.*?) <-> (.*?)(?: \([0-9.]+\))?", x)
        yield from (m.groups() if m else ())
    elif isinstance(x, (dict, list)):
        for v in (x.values() if isinstance(x, dict) else x):
            yield from leaves(v)


def records() -> Iterator[tuple[str, list[str]]]:
    """(source, the strings of one row) for every row of examples/ and ../shared/data."""
    csv.field_size_limit(1 << 30)
    paths = sorted((REPO / "examples").rglob("*")) + sorted(SHARED.rglob("*"))
    for p in (p for p in paths if p.suffix in (".jsonl", ".json", ".tsv", ".csv", ".txt")):
        src = "examples" if (REPO / "examples") in p.parents else "shared"
        text = p.read_text("utf-8", errors="replace")
        if p.suffix in (".jsonl", ".json"):
            try:
                rows = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError:
                rows = [json.loads(text)]
            for r in rows:
                yield src, list(dict.fromkeys(leaves(r)))
        else:
            for row in csv.reader(text.splitlines(), delimiter="," if p.suffix == ".csv" else "\t"):
                cells = row + re.findall(r"<word>(.*?)</word>", " ".join(row))
                yield src, list(dict.fromkeys(c for c in cells if c.strip()))


def lexicon() -> tuple[list[str], list[tuple[str, str]]]:
    """(the English forms, the lexicon's own pairs: each form against each of its entry's, in
    both orders, alone and in a phrase)."""
    forms: list[str] = []
    pairs: set[tuple[str, str]] = set()
    for line in (REPO / "judge/judges/embedding/opposites.tsv").read_text("utf-8").splitlines():
        if line.startswith(("term\t", "char\t")):
            a, b = (side.split("|") for side in line.split("\t")[1:])
            forms += [f for f in a + b if line.startswith("term") and not op._CJK.search(f)]
            for x, y in itertools.chain(itertools.product(a, b), itertools.combinations(a + b, 2)):
                pairs.update({(x, y), (y, x), (f"User {x}", f"user {y}"),
                              (f"{x.title()}Account", f"{y}_account")})
    return list(dict.fromkeys(forms)), sorted(pairs)


def main() -> None:
    """Build the vocabulary and pairs, compare each algorithm with nltk, print (a)–(c)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--algorithm", nargs="+", default=["porter", "english"])
    ap.add_argument("--all", action="store_true", help="also list generated inflections")
    a = ap.parse_args()
    import Stemmer
    from bench_local_judge import make_pairs
    from nltk.stem import PorterStemmer

    nltk = PorterStemmer().stem
    forms, lex_pairs = lexicon()
    lex_words = sorted({w for f in forms for w in words_of(f)})
    vocab: dict[str, set[str]] = {}
    for w in lex_words:
        for v in {w, w + w[-1], w[:-1]} | {b + s for b in (w, w[:-1]) for s in SUFFIXES}:
            vocab.setdefault(v, set()).add("inflection")
    pairs = set(lex_pairs) | set(make_pairs(10_000))
    for src, strings in records():
        for s in strings:
            for w in words_of(s):
                vocab.setdefault(w, set()).add(src)
        pairs.update(itertools.permutations([s for s in strings if len(s) <= op.MAX_LEN][:80], 2))
    for p in (REPO / "docs").rglob("*.md"):
        for w in words_of(p.read_text("utf-8")):
            vocab.setdefault(w, set()).add("docs")
    try:
        from english_words import get_english_words_set
        for w in get_english_words_set(["web2", "gcide"], lower=True, alpha=True):
            vocab.setdefault(w, set()).add("english-words")
    except ImportError:
        print("english-words not importable: its word lists left out")
    pair_list = sorted(pairs)
    print(f"lexicon: {len(forms)} English forms of {len(lex_words)} words; vocabulary "
          f"{len(vocab):,} words; pairs {len(pair_list):,}"
          + ("" if SHARED.is_dir() else " (../shared/data absent)"))

    def partition(stem: Callable[[str], str]) -> set[frozenset[str]]:
        keys: dict[str, set[str]] = {}
        for f in forms:
            keys.setdefault(" ".join(stem(w) for w in words_of(f)), set()).add(f)
        return {frozenset(g) for g in keys.values()}

    def matches(stem: Callable[[str], str]) -> dict[str, frozenset[str]]:
        by_stem: dict[str, set[str]] = {}
        for w in lex_words:
            by_stem.setdefault(stem(w), set()).add(w)
        return {w: frozenset(by_stem.get(stem(w), ())) for w in vocab}

    ref_part, ref_match = partition(nltk), matches(nltk)
    use(nltk)
    ref_dec = [op.find_opposition(x, y) for x, y in pair_list]
    print(f"nltk: {len(ref_part)} keys; opposes {sum(d is not None for d in ref_dec):,} pairs")
    for algorithm in a.algorithm:
        stem = Stemmer.Stemmer(algorithm).stemWord
        part, match = partition(stem), matches(stem)
        print(f"\n== PyStemmer {algorithm}: {len(part)} keys; (a) groups differing: "
              f"{len(part ^ ref_part)}")
        for g in sorted(part ^ ref_part, key=sorted):
            print(f"   {'nltk' if g in ref_part else algorithm}: {sorted(g)}")
        diff = [w for w in sorted(vocab) if match[w] != ref_match[w]]
        real = [w for w in diff if vocab[w] != {"inflection"}]
        print(f"(b) words matching other lexicon words: {len(diff):,} of {len(vocab):,} "
              f"({len(real)} not only generated inflections)")
        for w in diff if a.all else real:
            print(f"   {w}: nltk {sorted(ref_match[w])} ({nltk(w)}), {algorithm} "
                  f"{sorted(match[w])} ({stem(w)}); from {', '.join(sorted(vocab[w]))}")
        use(stem)
        dec = [op.find_opposition(x, y) for x, y in pair_list]
        changed = [(p, r, d) for p, r, d in zip(pair_list, ref_dec, dec, strict=True) if r != d]
        print(f"(c) pairs decided otherwise: {len(changed):,} of {len(pair_list):,}")
        for p, r, d in changed:
            print(f"   {p}: nltk {r and r.describe()}; {algorithm} {d and d.describe()}")


if __name__ == "__main__":
    main()
