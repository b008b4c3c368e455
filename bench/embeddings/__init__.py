"""Embedder benchmark on LoCoMo: ``python -m bench.embeddings.run [--limit N]``; figures in RESULTS.md."""
