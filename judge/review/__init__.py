"""``simjudge review``: the labelling web app — the population of pairs (:mod:`.population`), a
session's design, leases and estimates (:mod:`.session`) and the aiohttp server with its page
(:mod:`.server`, ``page.html``, ``review.js``, ``review.css``; the shared
``judge/runs/textview.js``); what a request body may hold (:mod:`.bodies`), one server per
database (:mod:`.dblock`) and a full disk (:mod:`.diskfull`). Labels are stored by
:mod:`judge.calibration.labelsdb`."""
