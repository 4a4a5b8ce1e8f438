"""Policy: rule switches, severities, and reading [tool.citeview] from TOML files upward."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeview.core.diagnostics import RULES, Severity, make
from citeview.core.errors import InputError
from citeview.core.policy import Policy, expand_codes, find_config, read_config


def test_defaults_follow_the_catalog() -> None:
    p = Policy()
    for code, rule in RULES.items():
        assert p.enabled(code) is rule.enabled
        assert p.severity(code) is rule.severity
    assert not p.enabled("CV205") and not p.enabled("CV307")


def test_conventions_switch_their_rules_on() -> None:
    assert Policy(require_locators=True).enabled("CV205")
    assert Policy(multi_source="per-marker").enabled("CV307")
    # ...unless ignored explicitly.
    assert not Policy(require_locators=True, ignore=frozenset({"CV205"})).enabled("CV205")


def test_select_extend_and_ignore() -> None:
    p = Policy(select=frozenset({"CV201"}), extend_select=frozenset({"CV307"}))
    assert p.enabled("CV201") and p.enabled("CV307") and not p.enabled("CV202")
    p = Policy(ignore=frozenset({"CV201"}), select=frozenset({"CV201", "CV202"}))
    assert not p.enabled("CV201") and p.enabled("CV202")


def test_expand_codes_accepts_codes_prefixes_names_and_all() -> None:
    assert expand_codes(["CV201"]) == {"CV201"}
    assert expand_codes(["cv3"]) == {c for c in RULES if c.startswith("CV3")}
    assert expand_codes(["unknown-source", "citation-in-code"]) == {"CV201", "CV302"}
    assert expand_codes(["ALL"]) == set(RULES)
    with pytest.raises(InputError, match="unknown rule 'CV999'"):
        expand_codes(["CV999"])
    with pytest.raises(InputError, match="unknown rule 'bogus'"):
        expand_codes(["bogus"])


def test_apply_filters_and_regrades() -> None:
    diags = [make("CV304", "m", 1, 2), make("CV308", "m", 3, 4)]
    p = Policy(ignore=frozenset({"CV308"}), severities={"CV304": Severity.ERROR})
    out = p.apply(diags)
    assert [(d.code, d.severity) for d in out] == [("CV304", Severity.ERROR)]
    assert diags[0].severity is Severity.WARNING  # the input is untouched


def test_from_mapping_reads_every_key() -> None:
    p = Policy.from_mapping({
        "families": ["cite", "ref"], "require-locators": True, "multi_source": "one-marker",
        "select": ["CV1", "CV2"], "extend-select": "CV307", "ignore": ["CV109"],
        "severity": {"CV304": "error", "uncited-paragraph": "warning"}, "fail-on": "warning",
        "weak-support-threshold": 0.5,
    })
    assert p.weak_support_threshold == 0.5
    assert p.families == ("cite", "ref") and p.require_locators
    assert p.multi_source == "one-marker" and p.fail_on is Severity.WARNING
    assert p.enabled("CV201") and p.enabled("CV307") and not p.enabled("CV109")
    assert not p.enabled("CV301")
    assert p.severity("CV304") is Severity.ERROR and p.severity("CV308") is Severity.WARNING


@pytest.mark.parametrize(("data", "message"), [
    ({"bogus": 1}, "unknown key 'bogus'"),
    ({"require-locators": "yes"}, "require-locators must be true or false"),
    ({"multi-source": "both"}, "multi-source must be"),
    ({"severity": {"CV304": "fatal"}}, "severity must be"),
    ({"select": 3}, "must be a list of strings"),
    ({"families": []}, "at least one family"),
    ({"weak-support-threshold": 1.5}, "weak-support-threshold: must be a number from 0 to 1"),
    ({"weak-support-threshold": "high"}, "weak-support-threshold: must be a number"),
    ({"weak-support-threshold": True}, "weak-support-threshold: must be a number"),
])
def test_bad_policy_values_are_input_errors(data: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Policy.from_mapping(data, "cfg")


def test_discovery_walks_up_to_the_nearest_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.citeview]\nrequire-locators = true\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert Policy.discover(deep).require_locators
    # A pyproject without [tool.citeview] on the way is skipped.
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nname = "y"\n')
    assert Policy.discover(deep).require_locators
    # A citeview.toml nearer wins, with top-level keys.
    (tmp_path / "a" / "citeview.toml").write_text('ignore = ["CV308"]\n')
    p = Policy.discover(deep)
    assert not p.require_locators and not p.enabled("CV308")
    found = find_config(deep)
    assert found is not None and found[0] == tmp_path / "a" / "citeview.toml"


def test_no_config_means_defaults(tmp_path: Path) -> None:
    assert find_config(tmp_path) is None
    assert Policy.discover(tmp_path) == Policy()


def test_invalid_toml_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "citeview.toml").write_text("ignore = [\n")
    with pytest.raises(InputError, match="invalid TOML"):
        Policy.discover(tmp_path)


def test_read_config_file(tmp_path: Path) -> None:
    f = tmp_path / "lint.toml"
    f.write_text('[tool.citeview]\nmulti-source = "per-marker"\n')
    assert read_config(f).multi_source == "per-marker"
    with pytest.raises(InputError, match="no such file"):
        read_config(tmp_path / "missing.toml")
    pp = tmp_path / "pyproject.toml"
    pp.write_text('[project]\nname = "z"\n')
    with pytest.raises(InputError, match=r"no \[tool.citeview\] table"):
        read_config(pp)


# Files tomllib cannot read as TOML and says so with something other than TOMLDecodeError.
HOSTILE_TOML = [
    pytest.param(b'[tool.citeview]\nignore = ["CV308"]\n# caf\xe9\n',
                 r"not UTF-8 \(byte 0xe9 on line 3\)", id="latin-1"),
    pytest.param(b"\xff\xfe[\x00t\x00", r"not UTF-8 \(byte 0xff on line 1\)", id="utf-16"),
    pytest.param(b"[tool.citeview]\nx = " + b"9" * 5000 + b"\n",
                 r"invalid TOML \(an integer longer than \d+ digits\)", id="huge-int"),
    pytest.param(b"[tool.citeview]\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n",
                 r"invalid TOML \(arrays or tables nested too deeply\)", id="deep-arrays"),
    pytest.param(b"x = " + b"{a = " * 5000 + b"1" + b"}" * 5000 + b"\n",
                 r"invalid TOML \(arrays or tables nested too deeply\)", id="deep-tables"),
]


@pytest.mark.parametrize("name", ["pyproject.toml", "citeview.toml"])
@pytest.mark.parametrize(("data", "message"), HOSTILE_TOML)
def test_hostile_config_files_are_one_line_input_errors(tmp_path: Path, name: str, data: bytes,
                                                       message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    for read in (lambda: Policy.discover(tmp_path),
                 lambda: read_config(path)):
        with pytest.raises(InputError, match=message) as info:
            read()
        assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


def test_a_huge_integer_threshold_is_out_of_range_not_a_crash() -> None:
    with pytest.raises(InputError, match="must be a number from 0 to 1"):
        Policy.from_mapping({"weak-support-threshold": 10 ** 400})


def test_read_config_of_a_directory_says_it_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory") as info:
        read_config(tmp_path)
    assert "no such file" not in str(info.value)
