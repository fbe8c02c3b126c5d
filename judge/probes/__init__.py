"""Probes of a judge's own reliability: order swap (:mod:`judge.probes.swap`), repeated samples
(:mod:`judge.probes.repeat`) and their statistics (:mod:`judge.probes.stats`)."""
