"""Chaos suite against ``manage.py serve``: ``python -m bench.chaos.run [experiment ...]``; see README.md."""
