"""Run the test identity provider: ``python -m tests.sso_provider.serve <port> <seed.json>``.

The seed names the clients (``client_id``, ``secret``, ``redirect_uri``) and the users (``username``,
``password``, ``email``, ``groups``). A fresh SQLite database and RSA signing key every run."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def main() -> None:
    port, seed_path = int(sys.argv[1]), Path(sys.argv[2])
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    os.environ["SSO_PROVIDER_KEY"] = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    os.environ["SSO_PROVIDER_ISSUER"] = f"http://127.0.0.1:{port}/o"
    os.environ["SSO_PROVIDER_DB"] = str(Path(tempfile.mkdtemp(prefix="mnemos-idp-")) / "idp.sqlite3")
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.sso_provider.settings"
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0, interactive=False)
    seed = json.loads(seed_path.read_text())
    for client in seed["clients"]:
        Application.objects.create(
            name=client["client_id"],
            client_id=client["client_id"],
            client_secret=client["secret"],
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=client["redirect_uri"],
            algorithm=Application.RS256_ALGORITHM,
        )
    for person in seed["users"]:
        user = User.objects.create_user(
            person["username"], email=person["email"], password=person["password"]
        )
        for name in person.get("groups", []):
            user.groups.add(Group.objects.get_or_create(name=name)[0])
    call_command("runserver", f"127.0.0.1:{port}", use_reloader=False, use_threading=True, skip_checks=True)


if __name__ == "__main__":
    main()
