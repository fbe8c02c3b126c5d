"""Choosing τ from human labels: labelled pairs, per-judge calibration, plots, and reading
a calibration back (``eval --tau-from``)."""
