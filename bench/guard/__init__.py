"""Memory Guard benchmark: secret recall, poisoning recall, false alarms, scan speed (`python -m bench.guard.run`)."""
