"""Prediction-powered inference (PPI, PPI++) for a mean over the items of a run: a judge's value
on every item, a person's value on a few, one estimate with a confidence interval that holds.

The estimand is the mean of the human values ``y`` over a population of ``N`` items (a run's
items). The judge's values ``f`` are known for all ``N``; ``y`` only for the ``n`` labelled ones,
drawn by a known design. The estimate corrects the judge's mean by the labelled items' residuals:

    θ̂ = λ·F̄ + ē,    ē = the design-weighted mean over the labelled items of e = y − λ·f,

with F̄ the judge's mean over all ``N`` items. Any λ gives an unbiased estimate (λ = 0 is the
classical human-only mean, λ = 1 the original PPI); PPI++ tunes λ to the value that minimises
the variance, here the design-weighted regression slope of ``y`` on ``f`` over the labelled
items, clipped to [0, 1] as PPI++ does. With the run's items as the population (``target="run"``)
this is the difference/regression estimator of survey sampling, so the variance carries the
finite-population correction ``1 − n/N`` — labelling every item leaves no uncertainty.

Designs (``pi`` and ``strata``):

* simple random sample (neither given): every labelled item had probability ``n/N``;
* stratified (``strata``): a simple random sample within each stratum, combined with the
  strata's shares ``N_h/N``; each stratum has its own λ (Fisch et al. 2024) when every
  stratum has at least :data:`TUNE_PER_STRATUM` labels, else one λ is fitted over all strata
  (each centred on its own means: a λ fitted on 3 labels costs more than it saves);
* known unequal probabilities (``pi``, the item's inclusion probability; active labelling,
  Zrnic & Candès 2024): the labelled items are weighted ``1/π`` (the Hájek form: a weighted
  mean, centred residuals in the variance), each with its own ``1 − π`` correction.

The variance of a stratum is the linearised (Taylor) variance of its weighted mean of residuals,
``n_h/(n_h−k) · Σ (w_i/Σw)² (1 − π_i)(e_i − ē)²`` (Särndal, Swensson & Wretman 1992, §5.7 and
§7.3), which for equal probabilities is the textbook ``(1 − n_h/N_h) s²/n_h`` (Cochran 1977,
eq. 2.19, 5.6); ``k`` is 2 when λ was tuned on the stratum's labels (the regression
estimator's residual degrees of freedom, Cochran §7.3), else 1; with λ fitted, each residual
is also weighted by its g-weight ``1 + (F̄ − f̄)(f_i − f̄)/s²_f``, which widens the interval of a
sample whose judge mean f̄ strays from the population's F̄ (Särndal, Swensson & Wretman,
"The weighted residual technique for estimating the variance of the general regression
estimator", Biometrika 76, 1989). The interval is Student's t,
its degrees of freedom those of the strata's variances combined by Satterthwaite's formula
(``n − 2`` for a simple random sample with a tuned λ; fewer when one stratum's variance
dominates), a little wider than the normal one for the 20–50 labels such a study has.

``target="distribution"`` treats the run's items instead as a sample of a larger population (a
system's behaviour on inputs like these): the judge's mean then has a variance of its own,
``λ²·var(f)/N_u``, and no finite-population correction applies. With a simple random sample and
``alpha``'s normal quantile this is exactly ``ppi_py.ppi_mean_ci`` of the ``ppi-python`` package
(Angelopoulos et al.), including its λ (``tests/metrics/test_ppi.py`` checks it).

Sources: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference",
Science 382 (2023); Angelopoulos, Duchi & Zrnic, "PPI++: Efficient prediction-powered
inference" (2024); Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen, "Stratified
prediction-powered inference for hybrid language model evaluation", NeurIPS 2024; Zrnic &
Candès, "Active statistical inference", ICML 2024; W. G. Cochran, *Sampling Techniques*, 3rd ed.
(1977); Särndal, Swensson & Wretman, *Model Assisted Survey Sampling* (1992).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

Numbers = Sequence[float] | NDArray[np.float64]
"""A 1-d sequence of numbers (list, tuple or numpy array)."""

Target = Literal["run", "distribution"]
"""What the estimate is about: the run's items themselves (finite population) or the
distribution they were drawn from."""


@dataclass(frozen=True)
class MeanEstimate:
    """An estimated mean with its interval.

    Attributes:
        value: the estimate.
        ci: ``(low, high)``, the ``1 − alpha`` confidence interval.
        se: its standard error.
        lam: λ of each stratum, in stratum order (one value without strata); 0.0 for the
            human-only estimate.
        n: labelled items; N: items of the population.
        df: degrees of freedom of the t quantile (None: the normal quantile).
    """

    value: float
    ci: tuple[float, float]
    se: float
    lam: tuple[float, ...]
    n: int
    N: int
    df: int | None

    def scaled(self, factor: float) -> MeanEstimate:
        """The same estimate multiplied by a known positive constant (a total: ``N``; a micro
        ratio with a known denominator)."""
        lo, hi = self.ci
        return MeanEstimate(self.value * factor, (lo * factor, hi * factor), self.se * factor,
                            self.lam, self.n, self.N, self.df)


def _array(x: Any, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d sequence of numbers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        k = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}[{k}]: not a finite number ({arr[k]!r})")
    return arr


def _check(y: NDArray[np.float64], f: NDArray[np.float64], f_pop: NDArray[np.float64],
           alpha: float) -> None:
    if y.size != f.size:
        raise ValueError(f"y and f_labelled differ in length ({y.size} vs {f.size})")
    if y.size < 2:
        raise ValueError(f"at least 2 labelled items are needed for an interval, got {y.size}")
    if f_pop.size < y.size:
        raise ValueError(f"f_population ({f_pop.size} items) is smaller than the labelled set "
                         f"({y.size})")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: expected a level in (0, 1), got {alpha!r}")


TUNE_PER_STRATUM = 10
"""Fewest labels in every stratum for a λ of each stratum's own; with fewer in any stratum,
one λ is fitted over all strata (each centred on its own means)."""


def _pooled_slope(y: NDArray[np.float64], f: NDArray[np.float64],
                  strata: list[tuple[Any, NDArray[np.bool_], NDArray[np.float64], float, float]]
                  ) -> float:
    """The λ that minimises the stratified variance with one λ for every stratum: the slope
    of ``y`` on ``f`` with each stratum centred on its own weighted means, each item weighted
    by its share of the variance, ``(N_h/N)² (w_i/Σw)² (1 − π_i)``; clipped to [0, 1]."""
    num = den = 0.0
    for _, in_h, p, _, share in strata:
        w = 1.0 / p
        sh = w / np.sum(w)
        yh, fh = y[in_h], f[in_h]
        a = share * share * sh * sh * (1.0 - p)
        fc, yc = fh - np.sum(sh * fh), yh - np.sum(sh * yh)
        num += float(np.sum(a * fc * yc))
        den += float(np.sum(a * fc * fc))
    return float(np.clip(num / den, 0.0, 1.0)) if den > 1e-15 else 0.0


def _combined_g(f: NDArray[np.float64],
                strata: list[tuple[Any, NDArray[np.bool_], NDArray[np.float64], float, float]]
                ) -> list[NDArray[np.float64] | None]:
    """The g-weights of the combined regression estimator (one λ over the strata; Cochran
    1977, §7.8): ``1 + (F̄ − f̄_st)(f_i − f̄_h)/T`` with ``f̄_st = Σ W_h f̄_h`` the sample's
    stratified judge mean, ``F̄`` the population's and ``T = Σ_h W_h Σ_i s_i (f_i − f̄_h)²``
    (Särndal, Swensson & Wretman 1989)."""
    delta = total = 0.0
    centred = []
    for _, in_h, p, f_mean, share in strata:
        w = 1.0 / p
        sh = w / np.sum(w)
        fh = f[in_h]
        f_bar = float(np.sum(sh * fh))
        delta += share * (f_mean - f_bar)
        total += share * float(np.sum(sh * (fh - f_bar) ** 2))
        centred.append(fh - f_bar)
    if total <= 0:
        return [None] * len(strata)
    return [1.0 + delta * c / total for c in centred]


def _slope(y: NDArray[np.float64], f: NDArray[np.float64],
           a: NDArray[np.float64]) -> float:
    """The a-weighted least-squares slope of y on f, clipped to [0, 1] (0 when f is constant)."""
    fm, ym = np.average(f, weights=a), np.average(y, weights=a)
    var = float(np.sum(a * (f - fm) ** 2))
    if var <= 1e-15 * max(1.0, float(np.sum(a * f * f))):
        return 0.0
    return float(np.clip(np.sum(a * (f - fm) * (y - ym)) / var, 0.0, 1.0))


def _stratum(y: NDArray[np.float64], f: NDArray[np.float64], pi: NDArray[np.float64],
             f_mean: float, lam: float | None, g: NDArray[np.float64] | None = None
             ) -> tuple[float, float, float, int]:
    """``(estimate, variance, λ, residual degrees of freedom)`` of one stratum's mean (see the
    module docstring). A λ tuned on the stratum's own labels costs one more degree of
    freedom, as the regression estimator's (Cochran 1977, §7.3: ``Σe²/(n − 2)``); with only 2
    labels in a stratum λ is not tuned there (λ = 1, plain PPI)."""
    w = 1.0 / pi
    a = w * w * (1.0 - pi)
    n = y.size
    spent = 1
    if lam is None:
        if n >= 3 and np.any(a > 0):
            lam, spent = _slope(y, f, a), 2
        else:  # 2 labels, or every item of the stratum labelled (λ is then moot)
            lam = 1.0
    e = y - lam * f
    e_mean = float(np.sum(w * e) / np.sum(w))
    share = w / np.sum(w)
    if g is None:
        g = np.ones(n)
    if spent == 2 and lam > 0:  # a slope fitted here: the residuals' g-weights (see the
        f_w = float(np.sum(share * f))  # module docstring); none for a flat judge (λ = 0)
        s_ff = float(np.sum(share * (f - f_w) ** 2))
        g = 1.0 + (f_mean - f_w) * (f - f_w) / s_ff
    var = n / (n - spent) * float(np.sum(share * share * (1.0 - pi)
                                         * (g * (e - e_mean)) ** 2))
    return lam * f_mean + e_mean, max(var, 0.0), lam, n - spent


def ppi_mean(y: Numbers, f_labelled: Numbers, f_population: Numbers,
             *, pi: Numbers | None = None, strata: Sequence[Any] | None = None,
             population_strata: Sequence[Any] | None = None,
             lam: float | Literal["tune"] = "tune", alpha: float = 0.05,
             target: Target = "run") -> MeanEstimate:
    """The prediction-powered estimate of the mean of ``y`` over a population of items.

    Args:
        y: the human value of each labelled item (n numbers).
        f_labelled: the judge's value of the same items (n numbers).
        f_population: the judge's value of every item of the population, the labelled ones
            included (N numbers; N >= n).
        pi: each labelled item's inclusion probability in (0, 1] (n numbers); default a
            simple random sample within each stratum (``n_h/N_h``).
        strata: each labelled item's stratum (any hashable; n values); needs
            ``population_strata``, each population item's stratum (N values).
        lam: ``"tune"`` (PPI++: the variance-minimising λ, per stratum), or a fixed λ
            (1.0: PPI; 0.0: the classical human-only estimate).
        alpha: 1 − the interval's coverage (0.05: a 95 % interval).
        target: ``"run"`` (the N items are the population: finite-population correction) or
            ``"distribution"`` (they are a sample of a larger one; simple random samples
            only, no strata or ``pi``: ``ppi_py.ppi_mean_ci``'s estimator and interval).

    Returns:
        :class:`MeanEstimate` (t interval with ``n − H`` degrees of freedom for ``"run"``, the
        normal interval for ``"distribution"``).

    Raises:
        ValueError: lengths that disagree, fewer than 2 labelled items (or fewer than 2 in a
            stratum), a stratum with labelled items but no population, a ``pi`` outside
            (0, 1], a non-finite value, ``alpha`` outside (0, 1), strata or ``pi`` with
            ``target="distribution"``.

    Examples:
        A judge that is right on 3 of 4 labelled items, on a population of 8 whose judge mean
        is 0.5; λ = 1 (plain PPI): 0.5 + mean(y − f) = 0.5 + (0 + 0 + 0 − 1)/4 = 0.25.

        >>> est = ppi_mean([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 1, 1, 0, 0, 1, 0], lam=1.0)
        >>> est.value, est.n, est.N
        (0.25, 4, 8)

        Every item labelled: no uncertainty is left (finite-population correction).

        >>> est = ppi_mean([1, 0, 1], [1, 1, 1], [1, 1, 1])
        >>> round(est.value, 4), est.se
        (0.6667, 0.0)
    """
    yv, fv, fp = _array(y, "y"), _array(f_labelled, "f_labelled"), _array(f_population,
                                                                          "f_population")
    _check(yv, fv, fp, alpha)
    if lam != "tune" and not (isinstance(lam, (int, float)) and math.isfinite(lam)):
        raise ValueError(f"lam: expected 'tune' or a finite number, got {lam!r}")
    fixed = None if lam == "tune" else float(lam)
    if target == "distribution":
        if pi is not None or strata is not None:
            raise ValueError("target 'distribution' takes a simple random sample only (no "
                             "strata, no pi)")
        return _superpopulation(yv, fv, fp, fixed, alpha)
    if target != "run":
        raise ValueError(f"target: expected 'run' or 'distribution', got {target!r}")
    if (strata is None) != (population_strata is None):
        raise ValueError("strata and population_strata go together")
    labels = list(strata) if strata is not None else [0] * yv.size
    pop = list(population_strata) if population_strata is not None else [0] * fp.size
    if len(labels) != yv.size or len(pop) != fp.size:
        raise ValueError("strata must have one value per labelled item and population_strata "
                         "one per population item")
    order = list(dict.fromkeys(pop))
    unknown = set(labels) - set(order)
    if unknown:
        raise ValueError(f"strata {sorted(map(str, unknown))} hold labelled items but no "
                         "population item")
    pv = None if pi is None else _array(pi, "pi")
    if pv is not None and (pv.size != yv.size or np.any(pv <= 0.0) or np.any(pv > 1.0)):
        bad = [float(x) for x in pv if not 0.0 < x <= 1.0]
        raise ValueError(f"pi: expected one inclusion probability in (0, 1] per labelled "
                         f"item, got {pv.size} values" + (f" (e.g. {bad[0]!r})" if bad else ""))
    lab, popa = np.asarray(labels, dtype=object), np.asarray(pop, dtype=object)
    n_total = fp.size
    strata_of: list[tuple[Any, NDArray[np.bool_], NDArray[np.float64], float, float]] = []
    for h in order:
        in_h = lab == h
        pop_h = popa == h
        n_h, big_n = int(in_h.sum()), int(pop_h.sum())
        if n_h == 0:
            raise ValueError(f"stratum {h!r} has no labelled item: label at least 2 there")
        if n_h < 2:
            raise ValueError(f"stratum {h!r} has 1 labelled item: at least 2 are needed for "
                             "its variance")
        p = pv[in_h] if pv is not None else np.full(n_h, min(1.0, n_h / big_n))
        strata_of.append((h, in_h, p, float(fp[pop_h].mean()), big_n / n_total))
    pooled = None
    gs: list[NDArray[np.float64] | None] = [None] * len(strata_of)
    if (fixed is None and len(strata_of) > 1
            and min(int(x[1].sum()) for x in strata_of) < TUNE_PER_STRATUM):
        pooled = _pooled_slope(yv, fv, strata_of)
        if pooled > 0:
            gs = _combined_g(fv, strata_of)
    value = var = 0.0
    lams = []
    parts: list[tuple[float, int]] = []  # each stratum's (variance share, residual dof)
    for (_, in_h, p, f_mean, share), g in zip(strata_of, gs, strict=True):
        est, v, lam_h, dof_h = _stratum(yv[in_h], fv[in_h], p, f_mean,
                                        fixed if pooled is None else pooled, g)
        value += share * est
        var += share * share * v
        lams.append(lam_h)
        parts.append((share * share * v, dof_h))
    if pooled is not None and len(parts) > 1:  # the pooled slope's degree of freedom
        k = max(range(len(parts)), key=lambda j: parts[j][1])
        parts[k] = (parts[k][0], max(1, parts[k][1] - 1))
    se = math.sqrt(var)
    df = _satterthwaite(parts)
    from scipy.stats import t as student_t

    half = float(student_t.ppf(1 - alpha / 2, df)) * se
    return MeanEstimate(value, (value - half, value + half), se, tuple(lams), int(yv.size),
                        n_total, df)


def _satterthwaite(parts: list[tuple[float, int]]) -> int:
    """The degrees of freedom of a sum of independent variance estimates (Satterthwaite 1946;
    Cochran 1977, eq. 5.16): ``(Σ v_h)² / Σ (v_h² / d_h)``, rounded down, at least 1; the
    plain sum of the ``d_h`` when every ``v_h`` is 0 (a stratum's df alone for one stratum)."""
    total = sum(v for v, _ in parts)
    if total <= 0:
        return max(1, sum(d for _, d in parts))
    denom = sum(v * v / d for v, d in parts if d > 0)
    return max(1, int(total * total / denom)) if denom > 0 else 1


def _superpopulation(y: NDArray[np.float64], f: NDArray[np.float64], f_pop: NDArray[np.float64],
                     lam: float | None, alpha: float) -> MeanEstimate:
    """``target="distribution"``: the labelled items and the unlabelled rest as two samples
    of a larger population (ppi-python's ``ppi_mean_ci``: its λ with ``clip=True``, its
    population standard deviations and normal quantile)."""
    from scipy.stats import norm

    n = y.size
    unl = f_pop.size - n
    if unl < 1:
        raise ValueError("target 'distribution' needs unlabelled items (the run's others)")
    # the unlabelled ones: the population less the labelled items (a multiset difference)
    rest = list(f_pop)
    for x in f:
        rest.remove(float(x))
    fu = np.asarray(rest, dtype=np.float64)
    if lam is None:
        point1 = fu.mean() + (y - f).mean()  # λ = 1's estimate, where ppi-python centres
        g, gh = y - point1, f - point1
        cov = float(np.sum((g - g.mean()) * (gh - gh.mean())) * 2 / n)  # ppi-python: 1/n
        var = float(np.cov(np.concatenate([gh, fu - point1])))
        lam = float(np.clip(cov / (2 * (1 + n / unl) * var), 0.0, 1.0)) if var > 0 else 0.0
    value = float(lam * fu.mean() + (y - lam * f).mean())
    se = math.sqrt((lam * fu).std() ** 2 / unl + (y - lam * f).std() ** 2 / n)
    half = float(norm.ppf(1 - alpha / 2)) * se
    return MeanEstimate(value, (value - half, value + half), se, (lam,), n, int(f_pop.size),
                        None)


def ppi_ratio(num: tuple[Numbers, Numbers, Numbers], den: tuple[Numbers, Numbers, Numbers],
              *,
              pi: Numbers | None = None, strata: Sequence[Any] | None = None,
              population_strata: Sequence[Any] | None = None,
              lam: float | Literal["tune"] = "tune", alpha: float = 0.05) -> MeanEstimate:
    """The ratio of two population means whose human values are known on the labelled items
    only (a precision whose denominator the human decides), by the delta method.

    Each of ``num`` and ``den`` is ``(y, f_labelled, f_population)`` as in :func:`ppi_mean`;
    both means are estimated there (each with its own tuned λ), R̂ = Â/B̂, and the variance is
    that of the linearised residual ``(e_A − R̂·e_B)/B̂`` under the same design (Särndal et
    al. 1992, §5.6, the ratio's Taylor linearisation).

    Raises:
        ValueError: as :func:`ppi_mean`; an estimated denominator of 0.

    Examples:
        >>> r = ppi_ratio(([1, 0, 1, 1], [1, 0, 1, 0], [1, 0, 1, 0, 1, 1]),
        ...               ([1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1, 1]), lam=0.0)
        >>> r.value  # the human-only ratio: 3 of 4
        0.75
    """
    common: dict[str, Any] = {"pi": pi, "strata": strata,
                              "population_strata": population_strata, "alpha": alpha}
    a = ppi_mean(*num, lam=lam, **common)
    b = ppi_mean(*den, lam=lam, **common)
    if b.value == 0:
        raise ValueError("the denominator's estimate is 0: the ratio is undefined")
    ratio = a.value / b.value
    # the linearised variable: its design variance is the ratio's (λ's fixed at their values)
    ya, fa, pa = (_array(x, "num") for x in num)
    yb, fb, _ = (_array(x, "den") for x in den)
    la = _item_lams(a.lam, strata, population_strata)
    lb = _item_lams(b.lam, strata, population_strata)
    e = ((ya - la * fa) - ratio * (yb - lb * fb)) / b.value
    lin = ppi_mean(e, np.zeros(e.size), np.zeros(pa.size), lam=0.0, **common)
    half = lin.ci[1] - lin.value
    return MeanEstimate(ratio, (ratio - half, ratio + half), lin.se, a.lam, a.n, a.N, lin.df)


def _item_lams(lams: tuple[float, ...], strata: Sequence[Any] | None,
               population_strata: Sequence[Any] | None) -> NDArray[np.float64]:
    """Each labelled item's λ: its stratum's (:func:`ppi_mean` lists them in the order the
    strata first occur in ``population_strata``)."""
    if strata is None or population_strata is None:
        return np.full(1, lams[0])
    index = {h: k for k, h in enumerate(dict.fromkeys(population_strata))}
    return np.asarray([lams[index[h]] for h in strata], dtype=np.float64)


def classical_mean(y: Numbers, population_size: int, *,
                   pi: Numbers | None = None, strata: Sequence[Any] | None = None,
                   population_strata: Sequence[Any] | None = None,
                   alpha: float = 0.05) -> MeanEstimate:
    """The human-only estimate of the population mean from the labelled items alone (λ = 0 in
    :func:`ppi_mean`: the design-weighted mean with its finite-population interval).

    Args:
        y: the labelled items' human values (n numbers).
        population_size: N, the items of the population.
        pi, strata, population_strata, alpha: as :func:`ppi_mean`.

    Raises:
        ValueError: as :func:`ppi_mean`.

    Examples:
        >>> round(classical_mean([1, 0, 1, 1], 100).value, 4)
        0.75
    """
    zeros = np.zeros(population_size)
    return ppi_mean(y, np.zeros(len(y)), zeros, pi=pi, strata=strata,
                    population_strata=population_strata, lam=0.0, alpha=alpha)
