"""Mnemos beside its peers on the LoCoMo protocol: ``python -m bench.peers.run`` (see run.py and README.md)."""
