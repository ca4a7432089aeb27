"""python -m fairlib.traces.fetch against a local HTTP server on loopback (no real network)."""

import functools
import gzip
import hashlib
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fairlib._validate import InvalidInputError
from fairlib.traces import fetch as fetch_module
from fairlib.traces import read_machine_events


def _serve(root):
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def mirror(tmp_path):
    root = tmp_path / "mirror"
    (root / "machine_events").mkdir(parents=True)
    with gzip.open(root / "machine_events" / "part-00000-of-00001.csv.gz", "wt") as f:
        f.write("0,1,0,pA,0.5,0.5\n0,2,0,pA,0.5,0.25\n")
    (root / "task_events").mkdir()
    for part in (0, 1):
        with gzip.open(root / "task_events" / f"part-{part:05d}-of-00500.csv.gz", "wt") as f:
            f.write("600000000,,3418309,0,4155527081,0,user=,3,9,0.125,0.07446,0.0004244,0\n")
    server, url = _serve(root)
    yield root, url
    server.shutdown()


def test_fetch_from_a_mirror_then_read(mirror, tmp_path, monkeypatch):
    root, url = mirror
    dest = tmp_path / "traces"
    # the fixtures are not the published files: drop the known checksums for this test
    monkeypatch.setattr(fetch_module, "KNOWN_SHA256", {})
    got = fetch_module.fetch(
        "google",
        tables=["machine_events", "task_events"],
        parts=[0, 1],
        dest=dest,
        base_url=url,
        progress=False,
    )
    assert [p.relative_to(dest).as_posix() for p in got] == [
        "google_clusterdata_2011_2/machine_events/part-00000-of-00001.csv.gz",
        "google_clusterdata_2011_2/task_events/part-00000-of-00500.csv.gz",
        "google_clusterdata_2011_2/task_events/part-00001-of-00500.csv.gz",
    ]
    assert len(read_machine_events(directory=dest / "google_clusterdata_2011_2")) == 2
    assert not list(dest.rglob("*.part"))


def test_checksum_mismatch_removes_the_file(mirror, tmp_path, monkeypatch):
    root, url = mirror
    rel = "machine_events/part-00000-of-00001.csv.gz"
    monkeypatch.setattr(fetch_module, "KNOWN_SHA256", {("google", rel): "0" * 64})
    dest = tmp_path / "traces"
    with pytest.raises(RuntimeError, match="does not match the published 0000"):
        fetch_module.fetch(
            "google", tables=["machine_events"], dest=dest, base_url=url, progress=False
        )
    assert not list(dest.rglob("part-00000-of-00001.csv.gz*"))
    good = hashlib.sha256((root / rel).read_bytes()).hexdigest()
    monkeypatch.setattr(fetch_module, "KNOWN_SHA256", {("google", rel): good})
    (path,) = fetch_module.fetch(
        "google", tables=["machine_events"], dest=dest, base_url=url, progress=False
    )
    assert path.is_file()


def test_missing_file_and_bad_arguments(mirror, tmp_path, capsys):
    _, url = mirror
    with pytest.raises(
        RuntimeError, match=r"task_events/part-00007-of-00500\.csv\.gz: download failed"
    ):
        fetch_module.fetch(
            "google", tables=["task_events"], parts=[7], dest=tmp_path, base_url=url, progress=False
        )
    assert (
        fetch_module.main(
            [
                "google",
                "--tables",
                "task_events",
                "--parts",
                "900",
                "--dest",
                str(tmp_path),
                "--base-url",
                url,
            ]
        )
        == 2
    )
    assert "parts: 900 is not a part of google/task_events" in capsys.readouterr().err
    assert fetch_module.main(["nope"]) == 2
    assert (
        fetch_module.main(["--list"]) == 0 and "task_usage (500 parts)" in capsys.readouterr().out
    )


def test_fetch_bitbrains_vms_then_read(tmp_path):
    import pandas as pd

    from fairlib.traces import read_vms
    from fairlib.traces.bitbrains import BITBRAINS_COLUMNS, write_vm

    root = tmp_path / "mirror"
    rows = pd.DataFrame(
        [[1375308176, 2, 5000.0, 1000.0, 20.0, 4.0e6, 1.0e6, 1.0, 2.0, 3.0, 4.0]],
        columns=BITBRAINS_COLUMNS,
    )
    for vm in (1, 2):
        write_vm(root / "rnd" / "2013-8" / f"{vm}.csv", rows)
    server, url = _serve(root)
    try:
        got = fetch_module.fetch(
            "bitbrains",
            tables=["rnd_2013-8"],
            parts=[1, 2],
            dest=tmp_path / "traces",
            base_url=url,
            progress=False,
        )
        assert [p.name for p in got] == ["1.csv", "2.csv"]
        vms = read_vms([1, 2], directory=tmp_path / "traces" / "bitbrains_gwa_t12")
        assert len(vms) == 2 and vms.cpu_usage_mhz.tolist() == [1000.0, 1000.0]
        with pytest.raises(
            InvalidInputError,
            match=r"parts: 0 is not a part of bitbrains/rnd_2013-8 \(1 to 500\)",
        ):
            fetch_module.files_for("bitbrains", ["rnd_2013-8"], [0])
    finally:
        server.shutdown()


def test_fetch_alibaba_unpacks_the_archive(tmp_path):
    import io
    import tarfile

    from fairlib.traces import read_machine_meta

    root = tmp_path / "mirror" / "v2018Traces"
    root.mkdir(parents=True)
    data = b"m_1,0,1,2,96,100,USING\nm_2,0,1,3,96,100,USING\n"
    with tarfile.open(root / "machine_meta.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("machine_meta.csv")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (root / "batch_task.tar.gz").write_bytes(b"not a tar archive")
    server, url = _serve(tmp_path / "mirror")
    try:
        (meta,) = fetch_module.fetch(
            "alibaba",
            tables=["machine_meta_v2018"],
            dest=tmp_path / "traces",
            base_url=url,
            progress=False,
        )
        assert (
            meta.relative_to(tmp_path / "traces").as_posix()
            == "alibaba_clusterdata/cluster-trace-v2018/machine_meta.csv.gz"
        )
        assert read_machine_meta(
            directory=tmp_path / "traces" / "alibaba_clusterdata"
        ).machine_id.tolist() == ["m_1", "m_2"]
        with pytest.raises(
            RuntimeError, match="(?s)batch_task.tar.gz: cannot unpack.*archive was removed"
        ):
            fetch_module.fetch(
                "alibaba",
                tables=["batch_task_v2018"],
                dest=tmp_path / "traces",
                base_url=url,
                progress=False,
            )
        # the corrupt archive does not count as done: the next fetch downloads and fails again, not
        # exit 0
        with pytest.raises(RuntimeError, match="batch_task.tar.gz: cannot unpack"):
            fetch_module.fetch(
                "alibaba",
                tables=["batch_task_v2018"],
                dest=tmp_path / "traces",
                base_url=url,
                progress=False,
            )
        # an archive downloaded earlier whose unpacked file went missing is unpacked again
        meta.unlink()
        (again,) = fetch_module.fetch(
            "alibaba",
            tables=["machine_meta_v2018"],
            dest=tmp_path / "traces",
            base_url=url,
            progress=False,
        )
        assert again == meta and meta.is_file()
    finally:
        server.shutdown()


def test_parts_of_a_single_part_table():
    with pytest.raises(InvalidInputError, match=r"machine_events has a single part \(0\)"):
        fetch_module.files_for("google", ["machine_events"], [5])
    assert fetch_module.files_for("google", ["machine_events"], [0, 1]) == [
        "machine_events/part-00000-of-00001.csv.gz"
    ]


def test_parts_and_tables_are_read_once_in_order():
    """``parts`` applies to every table: a generator, read by the first table's check, left the
    second table none; tables come in the order given, so a set (hash order) is refused."""
    tables = ["task_events", "task_usage"]
    want = fetch_module.files_for("google", tables, [0, 1])
    assert fetch_module.files_for("google", iter(tables), (p for p in [0, 1])) == want
    assert len(want) == 4
    with pytest.raises(InvalidInputError, match=r"tables = .*has no fixed order"):
        fetch_module.files_for("google", set(tables), [0])


def _serve_ranges(root, seen):
    """A mirror that honours ``Range: bytes=N-`` (206 Partial Content), recording the ranges asked
    for."""

    class Ranged(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            seen.append(self.headers.get("Range"))
            data = (root / self.path.lstrip("/")).read_bytes()
            start = (
                int(self.headers["Range"].split("=")[1].rstrip("-"))
                if self.headers.get("Range")
                else 0
            )
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            self.wfile.write(data[start:])

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Ranged, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def test_interrupted_download_resumes_from_its_part_file(mirror, tmp_path, monkeypatch):
    root, _ = mirror
    rel = "task_events/part-00000-of-00500.csv.gz"
    body = (root / rel).read_bytes()
    monkeypatch.setattr(
        fetch_module, "KNOWN_SHA256", {("google", rel): hashlib.sha256(body).hexdigest()}
    )
    dest = tmp_path / "traces"
    partial = dest / "google_clusterdata_2011_2" / (rel + ".part")
    partial.parent.mkdir(parents=True)
    partial.write_bytes(body[:20])  # what an interrupted download left
    seen = []
    server, url = _serve_ranges(root, seen)
    try:
        (path,) = fetch_module.fetch(
            "google", tables=["task_events"], parts=[0], dest=dest, base_url=url, progress=False
        )
    finally:
        server.shutdown()
    assert seen == ["bytes=20-"] and path.read_bytes() == body and not partial.exists()


def test_fetch_for_notebooks_reports_an_unreachable_source_and_exits_0(
    tmp_path, monkeypatch, capsys
):
    """No real data anywhere and no network: fetch says so (the notebooks then run on labelled
    synthetic data)."""
    from fairlib import paths

    monkeypatch.setattr(paths, "SHARED_TRACES", tmp_path / "no_shared")
    monkeypatch.setattr(paths, "DATA", tmp_path / "data")
    monkeypatch.setenv("FAIRLIB_TRACE_DIR", str(tmp_path / "traces"))
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens there
    status = fetch_module.fetch_for_notebooks(base_url=closed, progress=False, timeout=5)
    assert set(status) == {"google", "bitbrains"} and all(
        s.startswith("unavailable") for s in status.values()
    )
    assert fetch_module.main(["--notebooks", "--base-url", closed]) == 0
    assert "will run on synthetic data" in capsys.readouterr().err


def test_main_reports_a_destination_it_cannot_write_naming_it(tmp_path, monkeypatch, capsys):
    """A read-only --dest printed PermissionError's traceback; the command line names the
    destination given and exits 1."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "google" / "schema.csv"))

    monkeypatch.setattr(fetch_module, "fetch", refuse)
    assert fetch_module.main(["google", "--dest", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write into {str(tmp_path)!r}: Permission denied" in err, err


@pytest.mark.parametrize(
    "argv", [[], ["--tables", "task_events"], ["--parts", "1", "2"], ["--base-url", "file:///x"]]
)
def test_the_command_line_without_a_trace_name_says_it_is_missing(argv, capsys):
    """``fetch --tables task_events`` printed the trace list and exited 2 with nothing on stderr:
    a missing NAME is argparse's usage error, naming it and the options that need it."""
    with pytest.raises(SystemExit) as ended:
        fetch_module.main(argv)
    out, err = capsys.readouterr()
    assert ended.value.code == 2 and not out
    last = err.strip().splitlines()[-1]
    assert "error: the trace NAME is missing (one of alibaba, bitbrains, google)" in last, err
    assert all(a in last for a in argv if a.startswith("--")), err
