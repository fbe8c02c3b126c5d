"""``simjudge review``: the labelling web app — the population of pairs (:mod:`.population`), a
session's design, leases and estimates (:mod:`.session`) and the aiohttp server with its page
(:mod:`.server`, ``page.html``, ``review.js``, ``review.css``). Labels are stored by
:mod:`judge.calibration.labelsdb`."""
