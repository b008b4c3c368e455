"""The console keeps no tables of its own: its pages go through the services."""
