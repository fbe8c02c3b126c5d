"""Audit reports of a run: one self-contained HTML file, Markdown, or JSONL.

What is shown — each item's view and heatmaps, the verdicts of every judged pair, the queues —
comes from :func:`judge.runs.audit.report_data`, which asks the run's task and never names one;
this module draws it (the Markdown report: :mod:`judge.runs.reportmd`).

The HTML report (template ``judge/runs/report.html.jinja``) embeds the data as JSON — gzip +
base64 shards for a large run, inflated by the browser, produced as a stream
(:mod:`judge.runs.pagedata`) — and renders it by each view's ``kind``: no network, CSS/JS/SVG
inline, usable offline and by email. All judged text is inserted with ``textContent`` (never as
markup), and the embedded JSON (:mod:`judge.runs.pagejson`) escapes ``<``, ``>`` and ``&``, so
a prediction such as ``<script>`` is shown as text. Heatmaps are drawn lazily (when their item
scrolls into view), so a 10,000-pair run stays light. Human overrides made in the page export
as JSONL rows ``{"id", "pred", "truth", "label", "score", "rationale"}``, which ``simjudge
calibrate`` (label) and the ``table:`` judge (score, item-scoped by ``id``) read directly.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import IO, Any

from jinja2 import Environment, StrictUndefined, Template, select_autoescape

from judge.record.runrecord import RunRecord
from judge.record.store import REPORT_FILE, Renderer
from judge.redact import Redactor
from judge.runs import pagedata
from judge.runs.audit import pair_key, report_data, verdict_entry
from judge.runs.pagejson import script_json, script_utf8
from judge.runs.reportmd import render_markdown

ITEM_CHUNK = 256
"""Items of the page data encoded by one JSON call (a large run's items are never one text)."""


def render_report_file(record: RunRecord, name: str, out: IO[str]) -> None:
    """Write the run's ``report.html`` to ``out`` (the default queues; ``name`` = the run
    directory's name, shown in the page title): a :data:`judge.record.store.Renderer`."""
    render_html(record, name=name, out=out)


@functools.cache
def _template() -> Template:
    """The page's template, compiled once a process."""
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    return env.from_string(
        (resources.files("judge.runs") / "report.html.jinja").read_text("utf-8"))


def render_html(record: RunRecord, near: float = 0.1, name: str | None = None,
                blind: bool = False, human: Sequence[Path] = (),
                out: IO[str] | None = None, seed: int = 0,
                item_checks: tuple[Sequence[Any], Sequence[Any], str] | None = None) -> str:
    """The self-contained HTML report.

    The page data is produced as a stream: the verdicts are read one at a time from the run's
    log (:class:`~judge.record.verdictlog.VerdictLog`) and the items one by one, and a large
    page is compressed as it comes (:class:`judge.runs.pagedata.Payload`), so memory holds the
    compressed page, not the run's verdicts (a million-verdict run included).

    Args:
        record: the run.
        near: half-width of the "near τ" queue, in [0, 1].
        name: the run's name shown in the page (default: the record's directory name).
        blind: a blind-review page: no judge output in it (:func:`judge.runs.review.blind`).
        human: label files whose labels the page marks on their cells
            (:func:`judge.runs.review.with_human_labels`).
        out: write the page to this text file and return ""; None = return the page.
        seed: a blind page's seed of its random item order (any int).
        item_checks: ``(labels, truths, source)`` of human-checked items, marked on the page
            with each reviewer's matching beside the judge's
            (:func:`judge.runs.itemchecks.with_item_checks`; not on a blind page).

    Raises:
        ValueError: ``near`` outside [0, 1].
        InputError: the run's task is not a registered task; a bad label file.
    """
    import uuid

    template = _template()
    payload = pagedata.Payload()
    red = Redactor()  # API keys echoed in error texts never reach the report (judge.redact)
    entries: list[list[Any]] = []  # encoded chunk_size() at a time: one JSON call each
    size = pagedata.chunk_size()

    def flush() -> None:
        if entries:  # "[a,b]"[1:-1] is a's JSON, b's
            payload.verdicts(script_utf8(entries)[1:-1], len(entries))
            entries.clear()

    def sink(key: str, row: dict[str, Any]) -> None:
        entries.append([key, verdict_entry(row, red)])
        if len(entries) == size:
            flush()

    data = report_data(record, near, sink=None if blind else sink)
    flush()
    if human:
        from judge.runs.review import with_human_labels

        data, unmatched = with_human_labels(data, human)
        data["header"]["human_unmatched"] = unmatched
    if item_checks is not None and not blind:
        from judge.runs.itemchecks import with_item_checks

        data = with_item_checks(data, *item_checks)
    if blind:
        from judge.runs.review import blind as make_blind

        data = make_blind(data, seed)
    if name is not None:
        data["header"]["run"] = name
    run = data["header"]["run"]
    data.pop("verdicts")
    for key, value in data.items():
        payload.write(f",{script_json(key)}:")
        if key != "items":
            payload.write(script_json(value))
            continue
        payload.write("[")  # ITEM_CHUNK items at a time: "[a,b]"[1:-1] is a's JSON, b's
        for k in range(0, len(value), ITEM_CHUNK):
            payload.write("," if k else "")
            payload.write(script_utf8(value[k:k + ITEM_CHUNK])[1:-1])
        payload.write("]")
    mark = f"@@page-data-{uuid.uuid4().hex}@@"
    views = resources.files("judge.runs")
    page = template.render(title=f"simjudge audit — {run}", data_html=mark, run_name=run,
                           views_js=(views / "itemviews.js").read_text("utf-8"),
                           text_js=(views / "textview.js").read_text("utf-8"),
                           views_css=(views / "itemviews.css").read_text("utf-8"))
    before, after = page.split(mark, 1)
    if out is None:
        return before + "".join(payload.html()) + after
    out.write(before)
    for chunk in payload.html():
        out.write(chunk)
    out.write(after)
    return ""


def write_report(record: RunRecord, fmt: str, out: IO[str], near: float = 0.1,
                 blind: bool = False, human: Sequence[Path] = (), seed: int = 0) -> None:
    """Write the ``fmt`` report of ``record`` to the text file ``out``: ``html``
    (:func:`render_html`, with ``blind``, its order ``seed`` and ``human``) and ``jsonl``
    (:func:`render_jsonl`) as a stream, ``md`` (:func:`render_markdown`) at once.

    Raises:
        ValueError: an unknown ``fmt``; ``near`` outside [0, 1].
        InputError: as the renderers.
    """
    if fmt == "html":
        render_html(record, near, blind=blind, human=human, out=out, seed=seed)
    elif fmt == "jsonl":
        render_jsonl(record, near, out=out)
    elif fmt == "md":
        out.write(render_markdown(record, near))
    else:
        raise ValueError(f"unknown report format {fmt!r}; expected html, md or jsonl")


def render_jsonl(record: RunRecord, near: float = 0.1, out: IO[str] | None = None) -> str:
    """JSON lines: for an item with heatmaps one line per cell (``id``, ``label`` for a labelled
    heatmap, ``pred``, ``truth``, ``score``, ``exact``, ``matched``, ``flags`` — the queues it
    is in: near, disagree, failures, asymmetric, unstable, human_ne_judge — and every judge's
    ``verdicts``);
    for any other item one line with its id, source,
    task, query, view content and metrics.

    Written as a stream: memory holds each pair's row numbers in the run's verdict log, not its
    verdicts; a cell's verdicts are read from the log (one line each for a run on disk) as its
    line is written.

    Args:
        record: the run.
        near: half-width of the "near τ" queue, in [0, 1].
        out: write the lines to this text file and return ""; None = return them.

    Raises:
        ValueError, InputError: as :func:`report_data`.
    """
    rows_of: dict[str, list[int]] = {}
    counter = itertools.count()

    def sink(key: str, _row: dict[str, Any]) -> None:
        rows_of.setdefault(key, []).append(next(counter))

    data = report_data(record, near, sink=sink)
    red = Redactor()

    def verdicts_of(item_id: str, pred: str, truth: str) -> list[dict[str, Any]]:
        # the item's own verdicts (item-scoped judges, a human override), then the run-wide
        ks = rows_of.get(pair_key((item_id, pred, truth)), []) + rows_of.get(
            pair_key((None, pred, truth)), [])
        return [verdict_entry(record.verdicts.row(k), red) for k in ks]

    flags: dict[tuple[int, ...], set[str]] = {}
    for q in ("near", "disagree", "failures", "asymmetric", "unstable", "human_ne_judge"):
        for e in data["queues"][q]:
            flags.setdefault(tuple(e), set()).add(q)
    buffer = io.StringIO()
    dest: IO[str] = out if out is not None else buffer
    for n, item in enumerate(data["items"]):
        if not item["heatmaps"]:
            dest.write(json.dumps({"id": item["id"], "source": item["source"],
                                       "task": data["header"]["task"], "query": item["query"],
                                       **item["content"], "metrics": item["metrics"]},
                                      ensure_ascii=False) + "\n")
        for h, hm in enumerate(item["heatmaps"]):
            exact, matched = {tuple(e) for e in hm["exact"]}, {tuple(m) for m in hm["matched"]}
            label = {"label": hm["label"]} if hm["label"] else {}
            for i, p in enumerate(hm["pred"]):
                for j, t in enumerate(hm["truth"]):
                    dest.write(json.dumps({
                        "id": item["id"], **label, "pred": p, "truth": t,
                        "score": hm["scores"][i][j], "exact": (i, j) in exact,
                        "matched": (i, j) in matched, "flags": sorted(flags.get((n, h, i, j), ())),
                        "verdicts": verdicts_of(item["id"], p, t)},
                        ensure_ascii=False) + "\n")
    return "" if out is not None else buffer.getvalue()


RENDERERS: dict[str, Renderer] = {REPORT_FILE: render_report_file}
"""The files a run directory gets rendered from its record, for
:func:`judge.record.store.write_run` (``simjudge eval``, the Python API, ``calibrate
--suggest``'s audit run)."""
