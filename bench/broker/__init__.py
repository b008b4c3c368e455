"""The embedded broker's pace: jobs per second and idle CPU by transport and polling interval (`python -m bench.broker.run`)."""
