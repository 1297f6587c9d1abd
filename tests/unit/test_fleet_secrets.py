"""Fleet sources given as URLs with credentials: the password, the key and the signed query parameters
never reach a result line, --stats, --stats-json or a FleetResult; reading still uses the URL as given."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

import traceassert as ta
from tests._fleetdata import collector_lines, need
from traceassert._fleet.sources import shown_source, shown_sources
from traceassert.cli import main

fsspec = need("fsspec")

SECRETS = ("s3cretpw", "AKIAKEYID", "tok3nvalue", "deadbeefsig", "cr3dential")

POLICY = "def no_weather(a):\n    assert False, f'spans: {len(a.trace.spans)}'\n"


def _write(url: str, text: str) -> None:
    with fsspec.open(url, "wb") as fh:
        fh.write(text.encode())


@pytest.fixture
def sources() -> list[str]:
    """A whole file behind a user and password, a cut file behind a presigned-style query."""
    root = f"memory://AKIAKEYID:s3cretpw@bucket-{uuid.uuid4().hex}"
    whole = f"{root}/day/a.jsonl"
    _write(whole, "\n".join(collector_lines(0, 2)) + "\n")
    cut_lines = collector_lines(2, 1)
    cut_lines[-1] = cut_lines[-1][:200]
    signed = (
        f"memory://bucket-{uuid.uuid4().hex}/b.jsonl?X-Amz-Credential=cr3dential&token=tok3nvalue"
        "&X-Amz-Signature=deadbeefsig&part=1"
    )
    _write(signed, "\n".join(cut_lines))
    return [f"{root}/day/*.jsonl", signed]


def _clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} in {text!r}"
    assert "[REDACTED]" in text


def test_shown_source_redacts_userinfo_and_secret_parameters() -> None:
    assert shown_source("s3://key:secret@bucket/x.jsonl") == "s3://[REDACTED]@bucket/x.jsonl"
    assert shown_source("https://u:pw@host/x.jsonl") == "https://[REDACTED]@host/x.jsonl"
    assert (
        shown_source("https://h/x.jsonl?X-Amz-Signature=abc&sig=def&part=2&token=ghi")
        == "https://h/x.jsonl?X-Amz-Signature=[REDACTED]&sig=[REDACTED]&part=2&token=[REDACTED]"
    )
    assert shown_source("/local/u:pw@x.jsonl") == "/local/u:pw@x.jsonl"  # a local path is a name
    assert (
        shown_sources("cannot read: s3://k:s@b/x (bytes 1-2)")
        == "cannot read: s3://[REDACTED]@b/x (bytes 1-2)"
    )


def test_check_lines_stats_and_stats_json_show_no_credentials(
    sources: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.py"
    policy.write_text(POLICY, encoding="utf-8")
    stats_json = tmp_path / "stats.json"
    status = main(["check", *sources, "--policy", str(policy), "--stats", "--stats-json", str(stats_json)])
    assert status == 2  # a policy failed, and the cut file is partial
    out, err = capsys.readouterr()
    lines = [line for line in out.splitlines() if "memory://" in line]
    assert any("PARTIAL" in line for line in lines) and any("FAILED" in line for line in lines)
    assert any(line.startswith("    no_weather: memory://") for line in lines)  # --stats examples
    for line in lines:
        _clean(line)
    _clean(out + err)
    data = stats_json.read_text(encoding="utf-8")
    _clean(data)
    assert json.loads(data)["partial"][0]["file"].endswith("part=1")


def test_check_files_results_and_stats_show_no_credentials(sources: list[str]) -> None:
    result = ta.check_files(sources, lambda a: a.called_tool("nothing"))
    results = list(result)
    assert len(results) == 3  # both files were read, through their URLs as given
    for r in results:
        _clean(
            r.label + " ".join(r.losses) + " ".join(o.message for o in r.outcomes if "memory" in o.message)
        )
    _clean(json.dumps(result.stats.to_json()))


def test_an_unlistable_url_shows_no_credentials(capsys: pytest.CaptureFixture[str]) -> None:
    url = "memory://AKIAKEYID:s3cretpw@nowhere/x.jsonl?token=tok3nvalue"
    assert main(["check", url, "--called-tool", "x"]) == 2
    out = capsys.readouterr().out
    assert "no trace files match" in out
    _clean(out)
