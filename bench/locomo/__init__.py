"""LoCoMo through Mnemos's public API: `python -m bench.locomo.run` (see run.py)."""
