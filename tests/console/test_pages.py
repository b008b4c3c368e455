"""Every console page under every role, with its query count locked (an N+1 is a red build).

admin: alice (admin of A). member: dave (member of A, in team Platform, which may write alpha).
auditor: bob (auditor of A). outsider: charlie (no membership): every page is "not found".
"""

from __future__ import annotations

import pytest

ROLES = ("admin", "member", "auditor", "outsider")

# page -> (url template, {role: (status, queries)})
PAGES: dict[str, tuple[str, dict[str, tuple[int, int]]]] = {
    "home": (
        "/console/",
        {"admin": (200, 15), "member": (200, 15), "auditor": (200, 15), "outsider": (404, 8)},
    ),
    "enterprises": (
        "/console/enterprises/",
        {"admin": (200, 21), "member": (200, 21), "auditor": (200, 21), "outsider": (404, 8)},
    ),
    "projects": (
        "/console/projects/",
        {"admin": (200, 26), "member": (200, 28), "auditor": (200, 26), "outsider": (404, 8)},
    ),
    "project": (
        "/console/projects/{project}/",
        {"admin": (200, 23), "member": (200, 28), "auditor": (200, 23), "outsider": (404, 8)},
    ),
    "keys": (
        "/console/keys/",
        {"admin": (200, 17), "member": (200, 19), "auditor": (200, 16), "outsider": (404, 8)},
    ),
    "memories": (
        "/console/memories/",
        {"admin": (200, 23), "member": (200, 25), "auditor": (200, 23), "outsider": (404, 8)},
    ),
    "search": (
        "/console/memories/?q=deploy+pipeline&tag=ops",
        {"admin": (200, 29), "member": (200, 31), "auditor": (200, 29), "outsider": (404, 8)},
    ),
    "memory": (
        "/console/memories/{memory}/",
        {"admin": (200, 25), "member": (200, 30), "auditor": (200, 25), "outsider": (404, 8)},
    ),
    "guard": (
        "/console/guard/",
        {"admin": (200, 18), "member": (403, 15), "auditor": (200, 18), "outsider": (404, 8)},
    ),
    "guard_progress": (
        "/console/guard/progress/",
        {"admin": (200, 16), "member": (403, 15), "auditor": (200, 16), "outsider": (404, 8)},
    ),
    "audit": (
        "/console/audit/",
        {"admin": (200, 17), "member": (403, 15), "auditor": (200, 17), "outsider": (404, 8)},
    ),
    "audit_csv": (
        "/console/audit.csv",
        {"admin": (200, 16), "member": (403, 15), "auditor": (200, 16), "outsider": (404, 8)},
    ),
    "usage": (
        "/console/usage/",
        {"admin": (200, 19), "member": (200, 21), "auditor": (200, 19), "outsider": (404, 8)},
    ),
    "tools": (
        "/console/tools/",
        {"admin": (200, 15), "member": (200, 15), "auditor": (200, 15), "outsider": (404, 8)},
    ),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_under_every_role(client, console, django_assert_num_queries, page, role):
    template, expected = PAGES[page]
    url = template.format(project=console.world.a.project.pk, memory=console.memory_ids[0])
    status, queries = expected[role]
    client.force_login(console.person(role).user)
    client.get(url)  # warm the process-wide caches (content types, permissions) first
    with django_assert_num_queries(queries):
        response = client.get(url)
    assert response.status_code == status
    if status == 404:
        assert b"There is nothing here for this account." in response.content
    if status == 403:
        assert b"Only the enterprise&#x27;s owners, admins and auditors" in response.content


@pytest.mark.parametrize("page", list(PAGES))
def test_signed_out_goes_to_sign_in(client, console, page):
    url = PAGES[page][0].format(project=console.world.a.project.pk, memory=console.memory_ids[0])
    response = client.get(url)
    assert response.status_code == 302 and response.url.startswith("/console/login/?next=")


def test_query_counts_do_not_grow_with_rows(client, console, django_assert_num_queries):
    """Twice the memories, keys and projects: the same number of queries on the list pages."""
    from accounts.services.enterprises import project_create
    from accounts.services.keys import access_key_create
    from tests.memory.helpers import ctx, save_event

    world = console.world
    with ctx(world):
        for n in range(3):
            project_create(
                enterprise=world.a.enterprise, slug=f"extra-{n}", name=f"Extra {n}", team=world.a.team
            )
            access_key_create(member=world.alice.members[world.a.enterprise.slug], project=world.a.project)
    for n in range(4):
        save_event(
            client, console.alice_secret, f"Extra note {n}", f"Deploy pipeline note {n}", tags=["ops/x"]
        )
    client.force_login(world.alice.user)
    for page in ("keys", "memories", "search", "audit", "usage", "guard"):
        template, expected = PAGES[page]
        client.get(template)
        with django_assert_num_queries(expected["admin"][1]):
            assert client.get(template).status_code == 200
    # The projects page adds one guardian lookup per page, not per project.
    with django_assert_num_queries(PAGES["projects"][1]["admin"][1]):
        assert client.get("/console/projects/").status_code == 200


def test_static_files_are_served_without_a_cdn(client):
    response = client.get("/static/console/htmx-2.0.11.min.js")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body.startswith(b"var htmx=function()")
    assert client.get("/static/console/console.css").status_code == 200
