"""The server's address is the console's: ``/`` sends a person there, or to its sign-in."""

from __future__ import annotations


def test_the_root_redirects_a_signed_in_person_to_the_console(client, world):
    client.force_login(world.alice.user)
    response = client.get("/", follow=True)
    assert response.redirect_chain == [("/console/", 302)]
    assert response.status_code == 200


def test_the_root_sends_a_signed_out_person_to_the_sign_in(client, db):
    response = client.get("/", follow=True)
    assert response.redirect_chain == [("/console/", 302), ("/console/login/?next=/console/", 302)]
    assert response.status_code == 200
    assert "console/login.html" in [template.name for template in response.templates]
