"""The :class:`Task` protocol: everything ``simjudge`` needs to know about one kind of evaluation.

A task is the unit of extension. It declares its duties in one class, so adding a task is one
module under :mod:`judge.tasks` plus one line in :data:`judge.tasks.registry.TASKS`:

* ``name``, ``default_fields`` (prediction and gold field names), ``judge_role`` (what its
  judge does — ``judge`` for the similarity judge, ``arg_judge`` for argument values — or None),
  ``uses_tau``, ``threshold`` (the name of the threshold :meth:`Task.rescore` varies: ``tau``,
  ``arg_tau`` or None). A task names its options semantically; the command line spells them
  (``arg_tau`` → ``--arg-tau``) in one place, :func:`judge.errors.flag`;
* :meth:`Task.load` — records on disk → typed :class:`~judge.items.Item` objects (bad input is an
  :class:`~judge.errors.InputError` naming file, line and field);
* :meth:`Task.judge` — the (async) judge calls, if the task uses a judge → :class:`Judged`;
* ``row_model`` — the typed ``items.jsonl`` row it writes (:mod:`judge.record.itemrows`);
  :meth:`Task.rows` gives a stored run's rows as that model;
* :meth:`Task.score` — items (+ judged) → per-item rows (of ``row_model``) and dataset metrics;
* :meth:`Task.metrics_from_rows` — the dataset metrics recomputed from typed item rows: used by
  the bootstrap CIs of the summary, by ``compare``'s paired bootstrap and by ``rescore``, so the
  three agree by construction;
* :meth:`Task.rescore` — metrics at another τ / vote from a stored run (None when the task
  cannot be re-scored without judging again);
* :meth:`Task.view` / :meth:`Task.markdown` — what the audit report shows of an item, and
  :meth:`Task.matrices` — the similarity matrices the report draws as heatmaps.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, cast

from judge.errors import InputError, flag
from judge.items import DEFAULT_MAX_CHARS, Extractor, Item
from judge.record.itemrows import Match
from judge.record.rows import ItemRow
from judge.tasks.humantruth import HumanColumn, ItemTruth, LabelPlace
from judge.tasks.inputs import Source, run_source
from judge.tasks.judged import Judged, Rows
from judge.tasks.options import NoOptions
from judge.tasks.params import Params
from judge.tasks.views import markdown_lines

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from judge.judges.base import Judge, JudgeContext
    from judge.record.runrecord import RunRecord
    from judge.tasks.overrides import HumanOverrides

__all__ = ["THRESHOLD_LABELS", "HeatmapView", "ItemRow", "Judged", "Params", "RowT", "Rows",
           "Source", "Task"]

RowT = TypeVar("RowT", bound=ItemRow)
"""A task's row model (:attr:`Task.row_model`)."""

THRESHOLD_LABELS = {"tau": "τ", "arg_tau": "arg τ"}
"""How a task's threshold (:attr:`Task.threshold`) is named for people (reports, plots)."""


@dataclass(frozen=True)
class HeatmapView:
    """One similarity matrix as the audit report draws it.

    Attributes:
        label: what it is (``""`` for a selection item; the entity type for spans).
        pred, truth: the row and column strings (lengths m and n).
        scores: m×n scores in [0, 1], None = no verdict.
        matches: the chosen matching (:class:`~judge.record.itemrows.Match`: indices,
            score, exact or fuzzy, and the judge of a fuzzy one).
    """

    label: str
    pred: list[str]
    truth: list[str]
    scores: list[list[float | None]]
    matches: list[Match]


class Task(abc.ABC, Generic[RowT]):
    """Base class of every task (see the module docstring for the duties), generic in its row
    model: ``class SelectionTask(Task[SelectionRow])`` with ``row_model = SelectionRow``.

    Subclasses set the class attributes and override :meth:`score` and
    :meth:`metrics_from_rows` (and :meth:`load` / :meth:`judge` when the defaults — records
    through ``extractors``, no judge — do not fit).

    Class attributes:
        name: the ``--task`` value.
        summary: one line for ``--help`` and the docs.
        default_fields: default prediction and gold field names.
        extractors: per side, ``(record, field) -> typed value`` (raises ``InputError``).
        judge_role: the option that names the task's judge: ``judge`` (the similarity judge of
            matching tasks) or ``arg_judge`` (function calls' argument judge); None when it uses
            none.
        uses_tau: whether τ (``--tau``/``--tau-from``) applies (and ``rescore`` at another τ).
        needs_judge: whether the judge is required or optional.
        no_judge_reason: why a task without ``--judge`` refuses it (shown in the error).
        probe_reason: why the judge probes (``--probe swap``) cannot run on this task's
            verdicts, or None when they can (:mod:`judge.probes`).
        threshold: the name of the threshold :meth:`rescore` varies (``tau``; function calls:
            ``arg_tau``), None for the tasks without one (their rescore recomputes the run's
            metrics from its input files); :data:`THRESHOLD_LABELS` names it for people.
        curve_metrics: the metrics ``calibrate --run`` draws against that threshold.
        row_model: the task's ``items.jsonl`` row (:mod:`judge.record.itemrows`), an
            :class:`~judge.record.rows.ItemRow` subclass naming every field the task writes.
    """

    name: ClassVar[str]
    row_model: ClassVar[type[ItemRow]] = ItemRow
    """The typed row the task writes and reads (:attr:`RowT`)."""
    Options: ClassVar[type] = NoOptions
    """The task's own options: a frozen dataclass (:mod:`judge.tasks.options`), listed in
    :data:`judge.tasks.registry.TASK_OPTIONS` when it has fields."""
    summary: ClassVar[str] = ""
    default_fields: ClassVar[tuple[str, str]] = ("pred", "truth")
    extractors: ClassVar[tuple[Extractor, Extractor] | None] = None
    judge_role: ClassVar[Literal["judge", "arg_judge"] | None] = None
    uses_tau: ClassVar[bool] = False
    needs_judge: ClassVar[bool] = False
    """Whether the judge is required (``selection``, ``spans``) or optional (function calls)."""
    no_judge_reason: ClassVar[str] = ""
    probe_reason: ClassVar[str | None] = None
    """Why the task takes no similarity judge (``--judge`` is refused with this reason)."""
    threshold: ClassVar[Literal["tau", "arg_tau"] | None] = None
    """The threshold :meth:`rescore` varies (see the class docstring)."""
    curve_metrics: ClassVar[tuple[str, ...]] = (
        "macro_f1", "macro_precision", "macro_recall", "micro_precision", "micro_recall",
        "micro_f1")

    @property
    def threshold_label(self) -> str:
        """How :attr:`threshold` is named for people: ``τ``, or ``arg τ`` for function calls'
        argument threshold (:data:`THRESHOLD_LABELS`)."""
        return THRESHOLD_LABELS.get(self.threshold or "tau", "τ")

    def rows(self, record: RunRecord) -> list[RowT]:
        """The run's item rows as :attr:`row_model`, typed once
        (:meth:`~judge.record.runrecord.RunRecord.rows_as`).

        Raises:
            InputError: a row that is not a valid row of this task (file, line, field named).
        """
        return cast("list[RowT]", record.rows_as(self.row_model))

    def run_tau(self, record: RunRecord) -> float | None:
        """The threshold the run used for what :meth:`rescore` varies (default
        ``config.json``'s ``tau``; None for a task without one)."""
        if self.threshold is None:
            return None
        tau = record.config.tau
        return float(tau) if isinstance(tau, (int, float)) and not isinstance(tau, bool) \
            else None

    # ------------------------------------------------------------------ input
    def options(self, params: Params) -> Any:
        """The run's options of this task: ``params.options``, or the defaults of
        :attr:`Options` when none were given."""
        return params.options if isinstance(params.options, self.Options) else self.Options()

    def settled_options(self, items: Sequence[Item], options: Any) -> Any:
        """The options as the run uses them once its items are read (a default the data
        decides, e.g. the BFCL model a result folder names), recorded in ``config.json``;
        ``options`` unchanged by default."""
        return options

    def load(self, source: Source, options: Any = None) -> list[Item]:
        """Read ``source`` into items (``options``: the task's :attr:`Options`, for tasks
        whose reading depends on them; ignored by default).

        Raises:
            InputError: bad input (file, line and field named): a missing or mistyped field, a
                duplicate, missing or one-sided id, a string over ``source.max_chars``.
        """
        from judge.items import load_record_items

        return load_record_items(source, self._extractors(), self.default_fields)

    def from_dicts(self, rows: Sequence[Mapping[str, Any]], pred_field: str | None = None,
                   truth_field: str | None = None, id_fields: Sequence[str] = (),
                   max_chars: int = DEFAULT_MAX_CHARS, where: Sequence[str] = ()) -> list[Item]:
        """Python-API input: one dict per item → items (positions named ``<items>:N``), kept by
        the ``where`` filters (``FIELD=VALUE``) as ``--where`` keeps a file's records.

        Raises:
            InputError: as :meth:`load`.
        """
        from judge.items import items_from_dicts

        return items_from_dicts(rows, self._extractors(), pred_field or self.default_fields[0],
                                truth_field or self.default_fields[1], id_fields, max_chars,
                                where)

    def _extractors(self) -> tuple[Extractor, Extractor]:
        if self.extractors is None:
            raise InputError(f"task {self.name!r} does not read records of this form",
                             field="task")
        return self.extractors

    def check_judge(self, judge: Judge | None) -> None:
        """Raise :class:`InputError` when the task needs a judge and none is given."""
        if self.judge_role is not None and judge is None and self.needs_judge:
            raise InputError(f"task {self.name!r} needs a judge ({flag(self.judge_role)})",
                             field=flag(self.judge_role).lstrip("-"))

    # ------------------------------------------------------------------ judging
    async def judge(self, items: Sequence[Item], judge: Judge | None, ctx: JudgeContext,
                    params: Params) -> Judged:
        """Make the judge calls the task needs (default: none).

        Args:
            items: the run's items.
            judge: the task's judge (None when the task uses none or it is optional).
            ctx: the run's judge context (cache, stats, progress, per-run panel state).
            params: scoring parameters.
        """
        return Judged()

    def work_units(self, items: Sequence[Item], judge: Judge) -> int:
        """Units of judge work (for a progress bar's total); 0 = unknown."""
        return 0

    def config_entries(self, params: Params) -> dict[str, Any]:
        """Task-specific ``config.json`` entries (default: none)."""
        return {}

    # ------------------------------------------------------------------ scoring
    @abc.abstractmethod
    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[RowT], dict[str, Any]]:
        """Per-item rows (:attr:`row_model`, ``items.jsonl``) and dataset metrics
        (``summary.json``)."""

    @abc.abstractmethod
    def metrics_from_rows(self, rows: Sequence[RowT]) -> dict[str, float]:
        """The numeric dataset metrics recomputed from item rows (a resample of them for the
        bootstrap): equal to :meth:`score`'s numeric metrics on the run's own rows."""

    def scoring(self, options: Any) -> Task[RowT]:
        """The task scoring rows made with ``options`` (:attr:`Options` or recorded ``task_options``
        dict): ``self``, unless the metrics depend on an option (multilabel's label space)."""
        return self

    def resampled(self, rows: Sequence[RowT]) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """``idx -> metrics_from_rows([rows[i] for i in idx])``: the metrics of one bootstrap
        resample (``idx``: row indices, repeats allowed), for
        :mod:`judge.pipeline.uncertainty`. A task may read what its metrics need from the rows
        once here instead of once per resample (selection:
        :class:`~judge.tasks.matching.FuzzyColumns`); the result must be
        :meth:`metrics_from_rows` of the resample, bit for bit."""
        return lambda idx: self.metrics_from_rows([rows[i] for i in idx])

    def pair_groups(self, items: Sequence[Item]
                    ) -> list[tuple[str, Sequence[str], Sequence[str]]] | None:
        """The ``(item id, pred strings, truth strings)`` of every similarity matrix the
        task's judge fills (what human overrides may name, :mod:`judge.tasks.overrides`);
        None (the default) for a task without such matrices, which takes no overrides."""
        return None

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: HumanOverrides | None = None,
                ) -> tuple[list[RowT], dict[str, Any]] | None:
        """Rows and metrics of a stored run at τ (panels: another vote/quorum), with no judge
        call; None when the task cannot be re-scored. ``overrides``: human labels replacing
        stored scores (tasks with :meth:`pair_groups`; the others are never given any).

        Default, for the tasks that use no judge (``judgment``, ``generation``,
        ``multilabel``, ``ranking``: no threshold, ``tau`` ignored): the items are read again
        from the run's input files (:func:`judge.tasks.inputs.run_source`, sha256-checked) and
        scored by the current metric code with the run's ``zero_division`` — the run's own
        metrics unless the metric code changed since. Tasks with a judge override it (or
        return None).

        Raises:
            InputError: an input file of the run is missing or changed since the run.
        """
        if self.judge_role is not None:
            return None
        cfg = record.config
        source = run_source(record)
        items = source.first(self.load(source))
        return self.score(items, Judged(), Params(zero_division=float(cfg.zero_division)))

    def judge_requests(self, items: Sequence[Item], params: Params
                       ) -> list[tuple[str, list[tuple[str, str]]]]:
        """What :meth:`judge` would ask its judge, without asking: ``[(context, distinct
        (pred, truth) pairs)]`` (for ``eval --dry-run``); default none (tasks without a
        judge)."""
        return []

    # ---------------------------------------------------- human truth (judge.human, issue 35)
    def item_truth(self, item_id: str, pred: Any, truth: Any, label: Mapping[str, Any],
                   place: LabelPlace) -> ItemTruth:
        """Check one item label against the item's prediction and gold (as the input's
        :class:`Item` or a stored row holds them) → the item's :class:`ItemTruth`.

        Raises:
            InputError: the label does not fit the item (field named); default: the task has
                no item labels.
        """
        raise place.error(f"task {self.name!r} has no item labels (selection items have: "
                          "their accepted matches)", "id")

    def row_strings(self, row: RowT) -> tuple[Any, Any]:
        """A stored row's prediction and gold, as :meth:`item_truth` takes them."""
        return row.get("pred"), row.get("truth")

    def human_columns(self, rows: Sequence[RowT], truths: Mapping[int, Sequence[ItemTruth]],
                      params: Params) -> list[HumanColumn]:
        """One :class:`HumanColumn` per summary metric that has a human value, from the run's
        rows (in order) and the labelled rows' truths (row index → one per reviewer)."""
        return []

    # ------------------------------------------------------------------ audit report
    def view(self, row: RowT) -> dict[str, Any]:
        """What the audit report shows of one item: ``{"kind": VIEW, ...content}`` where VIEW
        is one of the report's item views (``boolean``, ``texts``, ``labels``, ``ranking``,
        ``calls``, ``matrix``); ``{}`` when the row does not carry its content."""
        return {}

    def markdown(self, content: Mapping[str, Any]) -> list[str]:
        """Markdown lines describing one item's :meth:`view` content (no heading), by its
        ``kind`` (:func:`judge.tasks.views.markdown_lines`); none for empty content."""
        return markdown_lines(content)

    def matrices(self, row: RowT) -> list[HeatmapView]:
        """The similarity matrices of an item row the report draws (default: none)."""
        return []

