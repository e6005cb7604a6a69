"""Web environments on a real browser.

So far this package holds ``actions``: the parser that turns an agent's function-call
action (``click(12)``, ``fill(7, "red shoes")``...) into a typed ``WebAction`` without
evaluating anything. It imports no browser library, so ``import turngym`` stays light.
"""
