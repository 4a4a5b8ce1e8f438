"""The project address (parsed without a server; a password never accepted nor shown) and the
server's schema version (a project of a newer citeview opens read-only with a message)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.session.errors import ReadOnlySession, SessionError
from citeview.session.pg.address import is_address, parse_address, with_project

names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True)


def test_addresses_name_a_server_and_a_project_and_pass_libpq_options_through() -> None:
    got = parse_address("postgresql://ana@db.example:5433/qa?sslmode=verify-full"
                        "&sslrootcert=/etc/ca.pem&project=week-12")
    assert got.project == "week-12"
    assert got.conninfo == ("postgresql://ana@db.example:5433/qa?sslmode=verify-full"
                            "&sslrootcert=%2Fetc%2Fca.pem")
    conninfo_to_dict = pytest.importorskip("psycopg.conninfo").conninfo_to_dict
    assert conninfo_to_dict(got.conninfo)["sslmode"] == "verify-full"
    service = parse_address("pg:team/qa")
    assert (service.conninfo, service.project) == ("service='team'", "qa")
    assert not is_address("qa.citeview") and is_address("pg:team/qa")
    for bad, says in (("pg:team", "pg:SERVICE/PROJECT"),
                      ("postgresql://db/qa", "name one project"),
                      ("postgresql://db/qa?project=a&project=b", "name one project"),
                      ("postgresql://db/qa?project=bad name", "letters, digits")):
        with pytest.raises(SessionError, match=says):
            parse_address(bad)


@given(user=names, password=st.text(alphabet="abcXYZ019!$%*()", min_size=3), project=names,
       in_query=st.booleans())
def test_a_password_in_an_address_is_refused_and_never_repeated(
        user: str, password: str, project: str, in_query: bool) -> None:
    from urllib.parse import quote

    secret = "S3" + password
    text = (f"postgresql://{user}@db/qa?password={quote(secret)}&project={project}" if in_query
            else f"postgresql://{user}:{quote(secret)}@db/qa?project={project}")
    with pytest.raises(SessionError) as err:
        parse_address(text)
    assert quote(secret) not in str(err.value) and "~/.pgpass" in str(err.value)


@given(project=names, other=names, service=st.booleans())
def test_another_project_on_the_same_server_keeps_its_connection(
        project: str, other: str, service: bool) -> None:
    text = (f"pg:svc/{project}" if service
            else f"postgresql://u@h/db?sslmode=require&project={project}")
    moved = parse_address(with_project(parse_address(text), other))
    assert moved.project == other and moved.conninfo == parse_address(text).conninfo


def test_a_project_of_a_newer_citeview_opens_read_only_with_a_message(pg: Any) -> None:
    import psycopg

    from citeview.session.pg import PgBackend
    from citeview.session.pg.schema import SCHEMA_VERSION

    PgBackend().create_file(pg.address("newer"), [Case("c", "Claim.")])
    with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
        admin.execute("UPDATE citeview.version SET version = %s", (SCHEMA_VERSION + 1,))
        try:
            with PgBackend().open(pg.address("newer")) as s:
                assert s.readonly and "newer citeview" in (s.message or "")
                assert s.case_ids() == ["c"]
                with pytest.raises(ReadOnlySession, match="newer citeview"):
                    s.set_blind(True)
        finally:
            admin.execute("UPDATE citeview.version SET version = %s", (SCHEMA_VERSION,))


def test_a_reviewer_hears_the_leads_adjudications_settings_and_new_cases(pg: Any) -> None:
    from citeview.session.events import AnnotationChanged, CasesAdded, MetaChanged
    from citeview.session.merge import ADJUDICATED
    from citeview.session.model import Annotation, AnnotationKey
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address("heard")
    PgBackend().create_file(address, [Case("c1", "Claim.")])
    add_member(address, "ana")
    add_member(address, "lee", "lead")
    with PgBackend().open(pg.address("heard", user="ana")) as ana, \
            PgBackend().open(pg.address("heard", user="lee")) as lead:
        seen: list[object] = []
        ana.subscribe(seen.append)
        assert ana.poll() == []  # listening from now on
        own = AnnotationKey("c1", 1, "x", "y")
        ana.put_annotation(Annotation(own, "ana", "supported"))
        lead.put_annotation(Annotation(own, ADJUDICATED, "unsupported"))
        lead.set_labels(["yes", "no"])
        lead.add_cases([Case("c2", "More."), Case("c3", "Again.")])
        heard = ana.poll(timeout=2.0)
        while len(heard) < 3:
            more = ana.poll(timeout=2.0)
            assert more, heard
            heard += more
        assert heard[:3] == [AnnotationChanged("c1"), MetaChanged(), CasesAdded()]
        assert seen[-3:] == heard[:3]  # the subscribers were told too
        assert ana.labels == ("yes", "no") and ana.case_ids() == ["c1", "c2", "c3"]
        assert ana.annotation(own, ADJUDICATED).verdict == "unsupported"  # type: ignore[union-attr]


def test_without_postgresql_the_team_tests_skip_but_fail_when_it_is_required(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.pg_cluster import missing

    monkeypatch.delenv("CITEVIEW_REQUIRE_POSTGRES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no initdb"):
        missing("no initdb")
    monkeypatch.setenv("CITEVIEW_REQUIRE_POSTGRES", "1")
    with pytest.raises(pytest.fail.Exception, match="CITEVIEW_REQUIRE_POSTGRES=1 but no initdb"):
        missing("no initdb")
