"""Every console page under every role, with its query count locked (an N+1 is a red build).

admin: alice (admin of A). member: dave (member of A, in team Platform, which may write alpha).
auditor: bob (auditor of A). outsider: charlie (no membership): every page is "not found".
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

ROLES = ("admin", "member", "auditor", "outsider")
MEMBER_403 = (403, 0)


def _page(url, admin, member, auditor):
    """Status and queries beyond the door's own (the tool catalogue, which reads nothing) per role.

    ``member`` is a count, or ``MEMBER_403`` for pages only owners, admins and auditors see.
    """
    as_member = member if isinstance(member, tuple) else (200, member)
    return url, {"admin": (200, admin), "member": as_member, "auditor": (200, auditor), "outsider": (404, 0)}


PAGES: dict[str, tuple[str, dict[str, tuple[int, int]]]] = {
    "home": _page("/console/", 0, 0, 0),
    "enterprises": _page("/console/enterprises/", 6, 6, 6),
    "projects": _page("/console/projects/", 11, 13, 11),
    "project": _page("/console/projects/{project}/", 8, 12, 8),
    "keys": _page("/console/keys/", 2, 4, 1),
    "memories": _page("/console/memories/", 4, 6, 4),
    "search": _page("/console/memories/?q=deploy+pipeline&tag=ops", 4, 6, 4),  # plus the ranking's own
    "memory": _page("/console/memories/{memory}/", 4, 9, 4),
    # 4: the events, the re-scan job, the pending count, and who set the detector's threshold last (audit).
    "guard": _page("/console/guard/", 4, MEMBER_403, 4),
    "guard_reports": _page("/console/guard/reports/", 1, MEMBER_403, 1),
    "guard_progress": _page("/console/guard/progress/", 2, MEMBER_403, 2),
    "audit": _page("/console/audit/", 2, MEMBER_403, 2),
    "audit_csv": _page("/console/audit.csv", 1, MEMBER_403, 1),
    "usage": _page("/console/usage/", 4, 6, 4),
    "tools": _page("/console/tools/", 0, 0, 0),
    "jobs": _page("/console/jobs/", 2, MEMBER_403, 2),
    # The data lifecycle (tests/console/test_lifecycle_pages.py has their changes and their rows).
    # exports, imports: the list, and the projects the form offers (a member's take the access policy's reads).
    "exports": _page("/console/exports/", 2, 4, 2),
    "exports_progress": _page("/console/exports/progress/", 1, 1, 1),
    "imports": _page("/console/imports/", 2, 4, 1),
    "imports_progress": _page("/console/imports/progress/", 1, 1, 1),
    # 3: the policies, a pending run, the form's projects; the dry run adds the enabled ones and the holds.
    "retention": _page("/console/retention/", 3, MEMBER_403, 2),
    "retention_dry_run": _page("/console/retention/dry-run/", 5, MEMBER_403, 4),
    "holds": _page("/console/holds/", 1, MEMBER_403, 1),
    "erasure": _page("/console/erasure/", 2, MEMBER_403, 1),
    # People (tests/console/test_people_pages.py has their changes).
    # members: the members with their teams and job roles, their direct grants, the pending invitations,
    # the invitation form's teams; member: the same for one, plus the form's teams, roles and projects.
    "members": _page("/console/members/", 6, MEMBER_403, 6),
    "member": _page("/console/members/{member}/", 7, MEMBER_403, 7),
    "teams": _page("/console/teams/", 3, MEMBER_403, 3),
    # tasks: the readable tasks with their versions, the projects the form offers (a member's grants);
    # task: one with its versions, and whether the member manages its project (guardian, for a member).
    "tasks": _page("/console/tasks/", 2, 4, 1),
    "task": _page("/console/tasks/{task}/", 2, 6, 2),
    # Webhooks (tests/console/test_webhook_pages.py has their changes): the endpoints; one endpoint, its
    # deliveries with their events (their logs: one more query when there are deliveries).
    "webhooks": _page("/console/webhooks/", 1, MEMBER_403, 1),
    "webhook": _page("/console/webhooks/{webhook}/", 2, MEMBER_403, 2),
    # Single sign-on (docs/sso.md): the enterprise's identity provider (none here; with one, its teams too).
    "sso": _page("/console/sso/", 1, MEMBER_403, 1),
}


def _url(console, template: str) -> str:
    """The page's URL, with the ids it names (a task is made for the task page)."""
    task = ""
    if "{task}" in template:
        from memory.services.tasks import task_create
        from tests.memory.helpers import ctx

        with ctx(console.world):
            task = str(task_create(project=console.world.a.project, name="Release check").pk)
    webhook = ""
    if "{webhook}" in template:
        from events.models import WebhookEndpoint
        from tests.memory.helpers import ctx

        with ctx(console.world):
            webhook = str(
                WebhookEndpoint.objects.create(url="https://example.com/hook", secret_encrypted="x").pk
            )
    return template.format(
        webhook=webhook,
        project=console.world.a.project.pk,
        memory=console.memory_ids[0],
        member=console.dave.members[console.world.a.enterprise.slug].pk,
        task=task,
    )


def _door_queries(client) -> int:
    """What the door costs (session, user, membership, tenant context) on a page that reads nothing.

    Locking the pages' own queries on top of it keeps these counts about the pages: a change to
    the door's cost shows up once, in the door's tests, not in every console page's.
    """
    client.get("/console/tools/")
    with CaptureQueriesContext(connection) as queries:
        client.get("/console/tools/")
    return len(queries)


def _ranking_queries(console, role) -> int:
    """What the tools' hybrid ranking itself costs (the search page adds it to its own queries)."""
    from accounts.models import Member
    from memory.selectors.search import hybrid_rank
    from memory.selectors.visibility import memories_visible
    from tests.memory.helpers import ctx

    with ctx(console.world):
        member = Member.objects.get(pk=console.person(role).members[console.world.a.enterprise.slug].pk)
        memories = memories_visible(member=member)
        hybrid_rank(memories=memories, query="deploy pipeline")
        with CaptureQueriesContext(connection) as queries:
            hybrid_rank(memories=memories, query="deploy pipeline")
    return len(queries)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_under_every_role(client, console, django_assert_num_queries, page, role):
    template, expected = PAGES[page]
    url = _url(console, template)
    status, queries = expected[role]
    client.force_login(console.person(role).user)
    door = _door_queries(client)
    if page == "search" and status == 200:
        queries += _ranking_queries(console, role)
    client.get(url)  # warm the process-wide caches (content types, permissions) first
    with django_assert_num_queries(door + queries):
        response = client.get(url)
    assert response.status_code == status
    if status == 404:
        assert b"There is nothing here for this account." in response.content
    if status == 403:
        assert b"Only the enterprise&#x27;s owners, admins and auditors" in response.content


def test_the_door_costs_a_handful_of_queries(client, console):
    """The door's own cost is bounded too (it runs on every page)."""
    client.force_login(console.world.alice.user)
    assert _door_queries(client) <= 15


@pytest.mark.parametrize("page", list(PAGES))
def test_signed_out_goes_to_sign_in(client, console, page):
    url = _url(console, PAGES[page][0])
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
    door = _door_queries(client)
    for page in ("keys", "memories", "search", "audit", "usage", "guard", "projects"):
        template, expected = PAGES[page]
        ranking = _ranking_queries(console, "admin") if page == "search" else 0
        client.get(template)
        with django_assert_num_queries(door + ranking + expected["admin"][1]):
            assert client.get(template).status_code == 200


def test_static_files_are_served_without_a_cdn(client):
    response = client.get("/static/console/htmx-2.0.11.min.js")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body.startswith(b"var htmx=function()")
    assert client.get("/static/console/console.css").status_code == 200


@pytest.mark.parametrize("page", [p for p in PAGES if p not in ("enterprises", "audit_csv")])
def test_an_auditor_sees_no_button_that_changes_anything(client, console, page):
    """The only form an auditor gets that posts is "Sign out" (choosing an enterprise changes no data)."""
    url = _url(console, PAGES[page][0])
    client.force_login(console.world.bob.user)
    text = client.get(url).content.decode()
    sign_out = 'method="post" action="/console/logout/"'
    assert text.count('method="post"') == text.count(sign_out) <= 1
