"""The Python API: :func:`evaluate`, mirroring ``simjudge eval``, and its :class:`EvalResult`.

It stands on the top floor beside the CLI: it judges and scores through
:mod:`judge.pipeline.evaluate` and writes the run directory with its audit report
(:data:`judge.runs.report.RENDERERS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.cachemodes import CacheMode
from judge.items import DEFAULT_MAX_CHARS, Item
from judge.judges.base import Judge
from judge.judges.options import JudgeOptions
from judge.judges.panel import Vote
from judge.matrix import SimilarityMatrix
from judge.record.rows import ItemRow
from judge.record.runrecord import RunRecord
from judge.tasks.fcoptions import FcFormat
from judge.verdict import Verdict


@dataclass
class EvalResult:
    """What :func:`evaluate` produced.

    Attributes:
        record: the typed run record.
        config, summary: ``config.json`` and ``summary.json`` as dicts.
        items: the item rows (``items.jsonl``) as dicts; :attr:`rows` types them.
        verdicts: every judge verdict, one per distinct judged pair.
        matrices: selection: each item's :class:`~judge.matrix.SimilarityMatrix`.
        run_dir: where the run was written, if it was.
    """

    record: RunRecord
    config: dict[str, Any]
    summary: dict[str, Any]
    items: list[dict[str, Any]]
    verdicts: list[Verdict]
    matrices: list[SimilarityMatrix] = field(default_factory=list)
    run_dir: Path | None = None

    @property
    def rows(self) -> list[ItemRow]:
        """The item rows as the task's typed row model (:mod:`judge.record.itemrows`:
        ``result.rows[0].f1``, ``.matches``…), the objects behind :attr:`items`."""
        return list(self.record.items)

    def to_pandas(self) -> Any:
        """The per-item metrics as a ``pandas.DataFrame``, one row per item with typed columns
        (:meth:`judge.record.runrecord.RunRecord.to_pandas`: ``id``, ``source``, counts,
        ``precision``/``recall``/``f1`` in [0, 1]…).

        Raises:
            ImportError: pandas is missing (``pip install "simjudge[notebook]"``).
        """
        return self.record.to_pandas()

    def verdicts_to_pandas(self) -> Any:
        """The verdicts as a ``pandas.DataFrame``, one row per judged pair and judge
        (:meth:`judge.record.runrecord.RunRecord.verdicts_to_pandas`).

        Raises:
            ImportError: pandas is missing (``pip install "simjudge[notebook]"``).
        """
        return self.record.verdicts_to_pandas()

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the run's summary table (metrics with their 95 % CIs,
        accounting), HTML-escaped."""
        return self.record._repr_html_()


def load_run(path: str | Path) -> RunRecord:
    """Read a run directory written by ``simjudge eval`` or :func:`evaluate` into its typed
    record, the item rows typed by the run's task (:mod:`judge.record.itemrows`:
    ``record.items[0].f1``), for a notebook: ``.to_pandas()``, ``.verdicts_to_pandas()``,
    ``.summary``, ``.config``, and a summary table as its rich display.

    Args:
        path: the run directory.

    Returns:
        :class:`judge.record.runrecord.RunRecord` (rows left untyped only for a task this
        simjudge does not know).

    Raises:
        judge.errors.InputError: not a run directory, malformed JSON, or a row without a
            required field or with a mistyped one (file, line and field named).
    """
    from judge.errors import InputError
    from judge.record.store import load_run as read
    from judge.tasks.registry import get_task

    record = read(path)
    try:
        task = get_task(record.task)
    except InputError:  # a task of another simjudge: its rows stay the plain envelope
        return record
    record.rows_as(task.row_model)
    return record


def evaluate(items: Sequence[Mapping[str, Any]] | Sequence[Item] | Any, task: str = "selection",
             judge: str | Judge | Sequence[str | Judge] | None = None, tau: float = 0.7,
             context: str = "", cache_dir: str | Path | None = None,
             cache_mode: CacheMode = "read-write", out: str | Path | None = None,
             pred_field: str | None = None, truth_field: str | None = None,
             zero_division: float = 0.0, max_chars: int = DEFAULT_MAX_CHARS,
             fc_format: FcFormat | None = None, arg_tau: float | None = None, *,
             id_fields: Sequence[str] = (), where: Sequence[str] | Mapping[str, Any] = (),
             task_options: Mapping[str, Any] | None = None,
             vote: Vote = "mean", quorum: int = 1, tau_from: str | Path | None = None,
             repeats: int = 1, probes: Sequence[str] = (), bootstrap: int = 1000,
             seed: int = 0, judges_file: str | Path | None = None,
             judge_options: JudgeOptions | None = None, max_usd: float | None = None,
             overwrite: bool = False, allow_stale_calibration: bool = False,
             overrides: Sequence[str | Path] = ()) -> EvalResult:
    """Python API mirroring ``simjudge eval``: the same pipeline
    (:func:`judge.pipeline.run.run_judged`), the same checks, panels, probes and bootstrap.

    Args:
        items: dicts with the task's fields (default names ``pred``/``truth``, or
            ``pred_fn``/``gold_fn`` for function calls; ``id`` used when every dict has one,
            an error when only some have one), a pandas ``DataFrame`` or an HF
            ``datasets.Dataset`` with those columns (one record per row; a DataFrame's NaN
            cell is a missing field, its index is not read:
            :func:`judge.record.frames.table_records`), or :class:`judge.items.Item` objects
            (``ranking`` needs Items from :func:`judge.tasks.ranking.load_ranking`). Records
            are numbered from 1 in input order (``<items>:N`` in messages; ids ``line<N>``
            when they carry none) and copied into the run directory with ``out``
            (``inputs.jsonl``), so ``simjudge rescore`` and ``simjudge export`` work on the
            run.
        task: a registered task name (:data:`judge.tasks.registry.TASKS`).
        judge: a judge spec (``local``, ``lexical``, ``table:PATH``…), a Judge object, or a
            list of them (a panel, voted by ``vote`` with ``quorum``), used by tasks with a
            judge (``selection``, ``spans``: similarity; ``function-call``: the argument
            judge, optional); ignored by the others. None = ``local`` for the tasks that need
            a judge, no judge for the others.
        tau: τ in [0, 1] (default 0.7, seed 001); tau_from: a ``calibration.json`` whose τ
            for this judge replaces it (and adds τ-aware intervals); refused when it was made
            with another judge (another model, scorer, template, score mode, endpoints,
            opposite guard, decoding parameters…: :mod:`judge.judges.identity`) unless
            ``allow_stale_calibration`` — then ``config["tau_from"]`` records ``stale`` and the
            ``differences``, and a :class:`judge.errors.StaleCalibrationWarning` is issued.
        context: task context for prompt judges, e.g. ``"IFPUG ILF names"``.
        cache_dir, cache_mode: the judge-call cache (default directory, ``read-write``).
        out: write a run directory there (atomically; checked before any judge call);
            overwrite: replace an existing one.
        pred_field, truth_field, id_fields: field names in ``items`` when they differ from the
            defaults (``--pred-field``, ``--truth-field``, ``--id-field``).
        where: keep only the records whose fields equal these values, compared as text as
            ``simjudge eval --where`` does: ``["split=test", "lang=zh"]`` or ``{"split":
            "test"}`` (booleans as ``true``/``false``); records keep their input numbers.
        zero_division: value for undefined ratios.
        max_chars: longest string (characters) accepted in a prediction or gold value; a
            longer one raises :class:`InputError`, never truncated (default 4,096; 0 = no
            limit), as ``simjudge eval --max-chars``.
        task_options: the task's own options by name (function calls: ``format``,
            ``functions``, ``arg_judge``, ``arg_tau``; :mod:`judge.tasks.fcoptions`).
        fc_format, arg_tau: function calls: shorthands for ``task_options["format"]`` and
            ``task_options["arg_tau"]``.
        vote, quorum, repeats, probes, bootstrap, seed, judges_file, judge_options, max_usd:
            as ``simjudge eval``'s ``--vote``, ``--quorum``, ``--repeats``, ``--probe``,
            ``--bootstrap``, ``--seed``, ``--judges``, the judge flags and ``--max-usd``.
        overrides: label files whose human labels take precedence over the judge for the
            pairs they name (``--overrides``; :mod:`judge.tasks.overrides`): a label naming
            no pair of the items raises :class:`InputError` before any judge call; the
            overridden pairs' ``human`` verdicts are in ``.verdicts`` beside the judge's.

    Returns:
        :class:`EvalResult` with ``.summary``, ``.items``, ``.verdicts``, ``.record``.

    Raises:
        judge.errors.InputError: bad items (``<items>:N: field 'x': …``: a missing or mistyped
            field, a duplicate id, a string over ``max_chars``; a ``datasets.DatasetDict``;
            no record left by ``where``), unknown task or judge, τ
            outside [0, 1], an option of another task, an ``out`` that cannot be written, a
            stale ``tau_from`` (each differing field named).

    Examples:
        >>> from judge import evaluate
        >>> r = evaluate([{"pred": ["职位信息"], "truth": ["Job Information"]}], judge="local")
        >>> r.summary["metrics"]["macro_f1"]  # doctest: +SKIP
    """
    from judge.calibration.overrides import read_overrides
    from judge.pipeline.config import EvalConfig
    from judge.pipeline.run import run_judged
    from judge.record.frames import table_records
    from judge.runs.report import RENDERERS
    from judge.tasks.registry import get_task

    t = get_task(task)
    table = table_records(items)
    if table is not None:
        items = table
    if isinstance(where, Mapping):
        where = [f"{k}={_where_text(v)}" for k, v in where.items()]
    elif isinstance(where, str):
        where = [where]
    opts: dict[str, Any] = dict(task_options or {})
    for name, value in (("format", fc_format), ("arg_tau", arg_tau)):
        if value is not None:
            opts[name] = value
    given = ([] if judge is None else
             [judge] if isinstance(judge, (str, Judge)) else list(judge))
    judges: list[Any] = []
    if t.judge_role == "judge":
        judges = given
    elif t.judge_role == "arg_judge" and given:
        if isinstance(given[0], str):
            opts.setdefault("arg_judge", given[0])
        else:
            judges = given[:1]
    config = EvalConfig(
        task=task, records=list(items), pred_field=pred_field, truth_field=truth_field,
        id_fields=tuple(id_fields), where=tuple(where), max_chars=max_chars,
        task_options=opts, judges=judges,
        judges_file=Path(judges_file) if judges_file is not None else None,
        judge_options=judge_options, vote=vote, quorum=quorum, tau=tau,
        tau_from=Path(tau_from) if tau_from is not None else None,
        allow_stale_calibration=allow_stale_calibration, repeats=repeats,
        probes=tuple(probes), context=context, zero_division=zero_division,
        overrides=read_overrides([Path(p) for p in overrides]) if overrides else None,
        bootstrap=bootstrap, seed=seed,
        cache_dir=Path(cache_dir) if cache_dir is not None else None, cache_mode=cache_mode,
        out_dir=Path(out) if out is not None else None, overwrite=overwrite, max_usd=max_usd)
    record, judged = run_judged(config, renderers=RENDERERS)
    assert isinstance(record, RunRecord) and judged is not None  # no dry run here
    return EvalResult(record, record.config.to_row(), record.summary.to_row(),
                      record.item_rows(), judged.verdicts, judged.matrices, record.path)


def estimate(run: str | Path | EvalResult, human: str | Path | Sequence[Mapping[str, Any]],
             target: str = "run", alpha: float = 0.05) -> dict[str, Any]:
    """Python API mirroring ``simjudge estimate`` (nothing written): every metric of a run as
    the judge's value, the prediction-powered estimate corrected by human-checked items
    (PPI++) and the human-only estimate, each with its interval
    (:func:`judge.human.estimate.estimate`).

    Args:
        run: a run directory, or the :class:`EvalResult` of :func:`evaluate`.
        human: item labels: a JSONL file or ``labels.db``, or dicts as its lines hold them
            (``{"id": ..., "matches": [[pred, truth], ...], "pi"?: ...}``).
        target: ``run`` (the items are the population) or ``distribution``.
        alpha: 1 − the intervals' coverage, in (0, 1).

    Returns:
        The ``estimate.json`` object: ``result["metrics"]["micro_f1"]["ppi"]["ci95"]``…

    Raises:
        InputError: a label that does not fit the run (file or ``<human>:N``, field named),
            too few labelled items, a bad ``target`` or ``alpha``.
    """
    from judge.errors import InputError
    from judge.human.estimate import estimate as estimate_record
    from judge.human.labels import labels_from_dicts, read_item_labels

    record = run.record if isinstance(run, EvalResult) else load_run(run)
    if target not in ("run", "distribution"):
        raise InputError(f"expected run or distribution, got {target!r}", field="target")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"expected a level in (0, 1), got {alpha}", field="alpha")
    sha = None
    if record.path is not None:
        from judge.calibration.pool import run_sha256

        sha = run_sha256(Path(record.path))
    labels = (read_item_labels(human, sha) if isinstance(human, (str, Path))
              else labels_from_dicts(human))
    return estimate_record(record, labels, run_sha256=sha, target=target, alpha=alpha,
                           run_name=f"run {record.path}" if record.path else "the run")


def _where_text(value: Any) -> str:
    """A ``where`` mapping's value as ``--where`` compares it: booleans ``true``/``false``,
    strings as they are, anything else as JSON."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
