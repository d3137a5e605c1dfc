"""The Python API against data (cases.json): right and wrong dicts, tool calls and texts."""

import json
import pathlib

import pytest

import netbox_lsp
from netbox_lsp import Checker

CASES = json.loads((pathlib.Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checker():
    return Checker(netbox_version="4.6")


def _ids(cases, field):
    return [json.dumps(c[field])[:70] for c in cases]


@pytest.mark.parametrize("case", CASES["calls"], ids=_ids(CASES["calls"], "filters"))
def test_check_call(checker, case):
    report = checker.check_call(case["target"], case["filters"])
    assert [f.code for f in report] == case["codes"]
    assert [f.key for f in report] == case["keys"]
    assert report.corrected == case["corrected"]
    assert bool(report) == bool(case["codes"])
    for f in report:
        start, end = f.range
        assert 0 <= start <= end <= len(report.text)
        assert f.severity in ("error", "warning", "information", "hint")
        assert f.message


@pytest.mark.parametrize("case", CASES["tool_calls"], ids=_ids(CASES["tool_calls"], "call"))
def test_check_tool_call(checker, case):
    report = checker.check_tool_call(case["call"])
    assert [f.code for f in report] == case["codes"]
    assert [f.key for f in report] == case["keys"]
    assert report.corrected == case["corrected"]


@pytest.mark.parametrize("case", CASES["texts"], ids=_ids(CASES["texts"], "text"))
def test_check_text(checker, case):
    report = checker.check_text(case["text"], kind=case["kind"])
    assert [f.code for f in report] == case["codes"]
    assert report.corrected == case["corrected"]
    # Ranges are Python str indices (code points), also after non-ASCII text.
    if "flagged" in case:
        assert [case["text"][f.range[0] : f.range[1]] for f in report] == case["flagged"]


def test_corrected_keeps_the_given_objects(checker):
    ids = [1, 2]
    fixed = checker.check_call("dcim.device", {"device_role_id": 3, "site_id": ids}).corrected
    assert fixed == {"role_id": 3, "site_id": [1, 2]}
    assert fixed["site_id"] is ids


def test_values_that_are_not_literals_are_not_judged(checker):
    class Opaque:
        pass

    assert not checker.check_call("dcim.device", {"status": Opaque(), "role_id": 2**70})
    # A non-literal value under a wrong key: the key is still judged.
    assert [f.code for f in checker.check_call("dcim.device", {"device_role_id": Opaque()})] == [
        "unknown-filter"
    ]


def test_versions_differ():
    # `device_role_id` was renamed `role_id` in 4.0; shipped releases all name it role_id,
    # while a choice added later is unknown to an older release.
    assert Checker("4.3").netbox_version == "4.3.3"
    assert Checker().netbox_version == shipped_last()
    approx = Checker("4.8.1")
    assert approx.notes and "not shipped" in approx.notes[0]
    assert [f.severity for f in approx.check_call("dcim.device", {"xyzzy_plugh": 1})] == ["warning"]


def shipped_last():
    return netbox_lsp.shipped_versions()[-1]


def test_bad_input_is_a_clear_error(checker):
    with pytest.raises(ValueError, match="shipped versions"):
        Checker("3.7")
    with pytest.raises(ValueError, match="cannot read index file"):
        Checker(index="/nonexistent/x.index.json.gz")
    with pytest.raises(TypeError):
        checker.check_call("dcim.device", {3: "x"})
    with pytest.raises(TypeError):
        checker.check_tool_call({"name": "netbox_get_objects", "arguments": {"x": object()}})
    with pytest.raises(ValueError):
        checker.check_tool_call({"name": "netbox_get_objects", "arguments": {"x": float("nan")}})
    with pytest.raises(ValueError, match="kind"):
        checker.check_text("x", kind="rst")
    assert not checker.check_call("", {})
    assert not checker.check_text("\x00binary", kind="text")


REPO = pathlib.Path(__file__).resolve().parents[2]


def test_index_file():
    checker = Checker(index=str(REPO / "index" / "netbox-4.5.10.index.json.gz"))
    assert checker.netbox_version == "4.5.10"
    assert [f.code for f in checker.check_call("dcim.device", {"device_role_id": 3})] == [
        "unknown-filter"
    ]


def test_instance_index(tmp_path):
    # The instance knowledge `index build` writes from a customised NetBox's saved answers
    # (custom fields): a custom-field filter with a wrong lookup is only known there.
    import subprocess

    fx = REPO / "tests" / "fixtures" / "instance"
    out = tmp_path / "instance.index.json.gz"
    subprocess.run(
        [
            netbox_lsp.find_netbox_lsp_bin(), "index", "build",
            "--openapi", str(fx / "openapi.json.gz"),
            "--status", str(fx / "status.json.gz"),
            "--custom-fields", str(fx / "custom-fields.json.gz"),
            "--choice-sets", str(fx / "custom-field-choice-sets.json.gz"),
            "-o", str(out),
        ],
        check=True,
        capture_output=True,
    )
    instance = Checker(index=str(out))
    assert instance.netbox_version.startswith("4.6")
    names = _custom_field_names(fx)
    assert names, "the fixture holds custom fields of dcim.device"
    # A custom field the instance has passes; one it does not have is flagged there only.
    unknown = {"cf_no_such_field_xyz": "x"}
    assert [f.code for f in instance.check_call("dcim.device", unknown)]
    assert not Checker("4.6.8").check_call("dcim.device", unknown)


def _custom_field_names(fx):
    import gzip

    data = json.loads(gzip.decompress((fx / "custom-fields.json.gz").read_bytes()))
    rows = data.get("results", data) if isinstance(data, dict) else data
    return [r.get("name") for r in rows if "dcim.device" in (r.get("object_types") or r.get("content_types") or [])]


def test_finding_as_dict_is_json(checker):
    f = checker.check_call("dcim.device", {"device_role_id": 3})[0]
    d = f.as_dict()
    assert json.loads(json.dumps(d))["fixes"][0]["certain"] is True
    assert d["key"] == "device_role_id"
    assert "unknown-filter" in repr(f)


def test_report_is_a_sequence(checker):
    report = checker.check_call("dcim.device", {"device_role_id": 3, "status": "Active"})
    assert len(report) == 2 and report[-1].code == "invalid-choice" and report[0].code == "unknown-filter"
    assert list(report) == report.findings
    with pytest.raises(IndexError):
        report[2]
    assert not report.ok
    hint_only = checker.check_text('{ device_list(filters: {name: {exact: "x"}}) { id } }', kind="graphql")
    assert [f.severity for f in hint_only] == ["information"]
    assert hint_only and hint_only.ok  # an information finding leaves the call ok


def test_a_report_answers_alike_whatever_is_read_first(checker):
    """ok, len, bool and repr answer from the check; the Finding objects are made on the first
    access that needs them, and that access order changes nothing."""
    d = {"device_role_id": 3, "status": "Active", "site_id__in": [1, 2]}
    codes = ["unknown-filter", "invalid-choice", "unsupported-lookup"]
    call = '{"name": "netbox_get_objects", "arguments": {"object_type": "dcim.device", "filters": %s}}'
    for check in (
        lambda: checker.check_call("dcim.device", d),
        lambda: checker.check_tool_call(call % json.dumps(d)),
        lambda: checker.check_text("nb.dcim.devices.filter(device_role_id=3, status='Active')", kind="python"),
    ):
        untouched, read = check(), check()
        as_read = [f.as_dict() for f in read.findings]
        assert (untouched.ok, len(untouched), bool(untouched)) == (read.ok, len(read), bool(read)) == (False, len(as_read), True)
        assert repr(untouched) == repr(read) == "Report(%s)" % json.dumps([f["code"] for f in as_read], separators=(", ", ": "))
        assert [f.as_dict() for f in untouched] == as_read
        assert untouched.findings is untouched.findings and untouched[0] is untouched.findings[0]
    assert [f.code for f in checker.check_call("dcim.device", d)] == codes
    valid = checker.check_call("dcim.device", {"role_id": 3})
    assert (valid.ok, len(valid), bool(valid), repr(valid), valid.findings) == (True, 0, False, "Report([])", [])


def test_tool_call_as_json_text(checker):
    text = '{"name": "netbox_get_objects", "arguments": {"object_type": "dcim.device", "filters": {"device_role_id": 3}}}'
    report = checker.check_tool_call(text)
    assert [(f.code, f.key) for f in report] == [("unknown-filter", "device_role_id")]
    assert report.corrected["arguments"]["filters"] == {"role_id": 3}
