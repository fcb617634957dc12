"""Sampling statistics: confidence intervals and run-to-run spread.

Shares of samples: Wilson score interval of a binomial proportion
(k thread-samples of n in the function).  Energy shares: the ratio
estimator's normal interval, s +- z * sqrt(sum e_i^2 (1[f] - s)^2) / sum e_i,
which is the Wilson/normal binomial interval again when every sample carries
the same energy.  Totals in one run (CPU time, energy of a function):
compound-Poisson sampling error, var = sum x_i^2.  Several runs: mean and
sample standard deviation across runs.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Sequence


def z_of(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(k: float, n: float, z: float) -> tuple[float, float]:
    """(low, high) of the proportion k/n, Wilson score interval."""
    if n <= 0:
        return (0.0, 0.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def ratio_share(
    part: float, part_sq: float, total: float, total_sq: float, z: float, model_var: float = 0.0
) -> tuple[float, float, float]:
    """(share, low, high) of part/total where part sums a subset of the
    per-sample values x_i (part_sq, total_sq: sums of x_i^2).  model_var:
    the variance of part from how the values were attributed (energy moved
    between part and the rest, the total unchanged: docs/ENERGY.md),
    added to the sampling variance of the numerator."""
    if total <= 0:
        return (0.0, 0.0, 0.0)
    s = part / total
    var_num = (1 - s) ** 2 * part_sq + s * s * max(0.0, total_sq - part_sq)
    var_num += max(0.0, model_var)
    half = z * math.sqrt(max(0.0, var_num)) / total
    return (s, max(0.0, s - half), min(1.0, s + half))


def mean_sd(values: Sequence[float]) -> tuple[float, float | None]:
    """Mean and sample standard deviation (None for fewer than 2 values)."""
    n = len(values)
    if n == 0:
        return (0.0, None)
    m = sum(values) / n
    if n < 2:
        return (m, None)
    return (m, math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)))


def t_quantile(confidence: float, df: float | None) -> float:
    """Student t quantile, by the Cornish-Fisher expansion (good to ~1e-3
    for df >= 2; exact enough for flagging)."""
    z = z_of(confidence)
    if df is None or df <= 0 or df > 1000:
        return z
    if df == 1:
        return math.tan(math.pi * confidence / 2)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def significant(
    base: float, base_var: float, new: float, new_var: float, threshold: float
) -> bool:
    """True when |new - base| exceeds threshold * the difference's sd."""
    sd = math.sqrt(max(0.0, base_var) + max(0.0, new_var))
    diff = abs(new - base)
    if sd == 0:
        return diff > 0
    return diff > threshold * sd
