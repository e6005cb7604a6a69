"""``turngym view``: the local web viewer of runs and episodes, and play in the browser."""
