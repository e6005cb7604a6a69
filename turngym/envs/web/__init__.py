"""Web environments on a real browser (Chromium through Playwright), all offline.

- ``browser``: the process's one Chromium, on an event loop in a background thread;
- ``page``: one env's guarded tab (only its own loopback origin loads), CDP observations
  and actions; ``axtree``: the accessibility tree as text with stable ``[N]`` ids;
- ``actions``: the function-call action parser (``click(12)``, ``fill(7, "text")``...),
  ``ast``-based, nothing evaluated;
- ``browser_env.BrowserEnv``: the Gymnasium plumbing; ``env.SiteEnv``: a local site with
  tasks (``tasks.Site``), served by ``server.LocalServer`` from a per-env SQLite copy;
- envs: ``shop`` (WebShop-v0), ``forum`` (WebForum-v0, WebAdmin-v0), ``miniwob``
  (``turngym/miniwob.<task>-v0``); sites under ``sites/``.

Nothing here imports Playwright until an env starts, so ``import turngym`` stays light.
"""
