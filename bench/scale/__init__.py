"""The read path at 10k / 100k / 1M memories in one project: `python -m bench.scale.run` (see run.py)."""
