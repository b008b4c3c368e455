"""A real OpenID Connect provider for the single sign-on tests (django-oauth-toolkit), run in its own process
on loopback with a throwaway SQLite database: the test IdP only, never Mnemos (``serve.py``)."""
