"""Download public trace files into the trace directory, with checksums and a progress bar.

    python -m fairlib.traces.fetch google --tables machine_events task_events --parts 0 1 2
    python -m fairlib.traces.fetch google --tables task_usage --parts 0  # 92 MB per part
    python -m fairlib.traces.fetch bitbrains --tables rnd_2013-8 --parts 1 2 3  # VM ids
    python -m fairlib.traces.fetch alibaba --tables machine_meta_v2018  # unpacked from the tar.gz
    python -m fairlib.traces.fetch --notebooks  # what the notebooks read, where not found already
    python -m fairlib.traces.fetch --list

Files land under ``FAIRLIB_TRACE_DIR`` (default ``data/traces/``) in the layout the loaders read. A
file whose SHA-256 is known (:data:`KNOWN_SHA256`, from the shared excerpt's PROVENANCE.md) is
verified and removed again on a mismatch; others are reported with the checksum they had. Downloads
go to a ``.part`` file renamed on completion, so an interrupted fetch never leaves a truncated file
under the final name; an interrupted download resumes from its ``.part`` file (HTTP range request)
where the server allows it; files already present with the right checksum are skipped.
``--base-url`` points at a mirror (the tests use a local HTTP server).

Sources: Google (the official bucket), Bitbrains GWA-T-12 Rnd (per-VM CSV files from a public
repository at a fixed commit — the Grid Workloads Archive serves them as one zip), Alibaba v2018
(the official tar.gz archives, unpacked to the loaders' ``cluster-trace-v2018/<table>.csv.gz``). No
SHA-256 is published for the Bitbrains and Alibaba files: their checksums are printed, not verified.

Why not ``pooch.retrieve(known_hash=..., processor=Untar())``: pooch restarts an interrupted
download from zero (no range requests; the Google task_usage parts are 92 MB each and the Alibaba
archives gigabytes), cannot verify only the files whose hash is known while printing the others',
and its Untar unpacks whole archives where the loaders need one member; the rest (the ``.part``
file, the digest by :func:`hashlib.file_digest`, the tar member) is a few lines of the standard
library.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .._validate import (
    InvalidInputError,
    _entry_kind,
    path_text,
    as_argv,
    as_parts,
    command_parser,
    as_sequence,
    check_choice,
    cli_integer,
)

__all__ = [
    "SOURCES",
    "KNOWN_SHA256",
    "NOTEBOOK_DATA",
    "fetch",
    "fetch_for_notebooks",
    "files_for",
    "main",
]


@dataclass(frozen=True)
class Source:
    folder: str  # under the trace directory
    base_url: str
    # table -> (file pattern with {part}, number of parts[, first part number]), under base_url
    tables: dict
    licence: str
    #: archives unpacked after download: downloaded file -> (member to extract, path written, gzip
    #: it?)
    unpack: dict | None = None


_BITBRAINS_REPO = (
    "https://raw.githubusercontent.com/JessieRayeBauer/Time-Series-Forecasting-/"
    "0901a0da3024507c7732c782621e590077abca64"
)

SOURCES = {
    "google": Source(
        "google_clusterdata_2011_2",
        "https://commondatastorage.googleapis.com/clusterdata-2011-2",
        {
            "schema": ("schema.csv", 1),
            "machine_events": ("machine_events/part-{part:05d}-of-00001.csv.gz", 1),
            "job_events": ("job_events/part-{part:05d}-of-00500.csv.gz", 500),
            "task_events": ("task_events/part-{part:05d}-of-00500.csv.gz", 500),
            "task_usage": ("task_usage/part-{part:05d}-of-00500.csv.gz", 500),
        },
        "CC-BY 4.0 (Google cluster-data)",
    ),
    # GWA-T-12 Rnd as kept in a public repository at a fixed commit (the GWA site serves the same
    # files as one zip archive); parts are VM ids 1-500, one CSV per VM and month
    "bitbrains": Source(
        "bitbrains_gwa_t12",
        _BITBRAINS_REPO,
        {
            f"rnd_{month}": (f"rnd/{month}/{{part}}.csv", 500, 1)
            for month in ("2013-7", "2013-8", "2013-9")
        },
        "BSD-2-Clause (source repository); GWA-T-12 terms of the Grid Workloads Archive",
    ),
    # v2018: the official archives (unpacked to the loader's layout); v2017 batch_task from a public
    # repository
    "alibaba": Source(
        "alibaba_clusterdata",
        "http://aliopentrace.oss-cn-beijing.aliyuncs.com",
        {
            "machine_meta_v2018": ("v2018Traces/machine_meta.tar.gz", 1),
            "batch_task_v2018": ("v2018Traces/batch_task.tar.gz", 1),
        },
        "Alibaba cluster-data terms (research use)",
        unpack={
            "v2018Traces/machine_meta.tar.gz": (
                "machine_meta.csv",
                "cluster-trace-v2018/machine_meta.csv.gz",
                True,
            ),
            "v2018Traces/batch_task.tar.gz": (
                "batch_task.csv",
                "cluster-trace-v2018/batch_task.csv.gz",
                True,
            ),
        },
    ),
}

#: SHA-256 of files whose published bytes are known (google: PROVENANCE.md of the shared excerpt)
KNOWN_SHA256 = {
    ("google", "schema.csv"): "e313db9a8831de8777ed6a6cf889c39409e157a88f231303080787d32c43d546",
    (
        "google",
        "machine_events/part-00000-of-00001.csv.gz",
    ): "fc44b8d2b33a96a261382488789855be7a0ce338888c99930ff45cb592249664",
    (
        "google",
        "job_events/part-00000-of-00500.csv.gz",
    ): "921fa8e019fb8ec5be9a2cb096912850d5959da33d9fb3b46807d9d0a9eae86f",
    (
        "google",
        "job_events/part-00001-of-00500.csv.gz",
    ): "8d8c0278664757c79b2ce865d3e4e83531abf836e7ed6da3321b8309a3099c58",
    (
        "google",
        "job_events/part-00002-of-00500.csv.gz",
    ): "d8ef067adfc1e968816d02ca1f29fdae9fe5d5c92e3a893c72e7754189e22556",
    (
        "google",
        "job_events/part-00003-of-00500.csv.gz",
    ): "91560eb58db4b79e420c87b61a2f1c391ff5f35a256a6ec822e39d4bd9419626",
    (
        "google",
        "job_events/part-00004-of-00500.csv.gz",
    ): "4957d5114389fe282abf7b73719aa7a61026f1b535337a0bfb067d42cf2442df",
    (
        "google",
        "task_events/part-00000-of-00500.csv.gz",
    ): "eae977d521bc6ed5d8deef56f1e06009d41844d4eb9a7e308e610d68e1b10f18",
    (
        "google",
        "task_events/part-00001-of-00500.csv.gz",
    ): "c122f250cf1f9817dc722a5b7457eb5caf122619accfada078de66d40f311501",
    (
        "google",
        "task_events/part-00002-of-00500.csv.gz",
    ): "3534b71a7c6a3952f192485c4726119ff8d904fc2d7b828b8d96987db4aab767",
    (
        "google",
        "task_events/part-00003-of-00500.csv.gz",
    ): "23b3df1b0e6c06d56c0cb28359635931bd0bbb7e584423537e23104580c56740",
    (
        "google",
        "task_events/part-00004-of-00500.csv.gz",
    ): "84f2198e7a083021294ce9c764ba4dcbed6baad30746f257b3580874f802e88e",
    (
        "google",
        "task_usage/part-00000-of-00500.csv.gz",
    ): "841254d3bc4199c26c82890dcd6bc87fcfb1ff23d75be8e39f0337f0ed1c6e28",
}


def files_for(
    name: str, tables: Iterable[str] | None = None, parts: Iterable[int] | None = None
) -> list[str]:
    """Relative paths of the files :func:`fetch` would download.

    Parameters
    ----------
    name : str
        A trace of :data:`SOURCES` (``"google"``, ``"bitbrains"``, ``"alibaba"``).
    tables : iterable of str, optional
        Tables of that trace, in the order wanted (default: all of them; a set is refused).
    parts : iterable of int, optional
        Part numbers of the sharded tables (default: all); a single-part table accepts only its own
        number. Read once (a generator applies to every table).

    Returns
    -------
    list of str
        Paths under the trace's folder, table by table, part by part.

    Raises
    ------
    InvalidInputError
        When the name or a table is unknown, a part is out of range, or ``parts`` holds more
        items than the largest table has parts.
    """
    check_choice(name, SOURCES, "name")
    source = SOURCES[name]
    # each read once, in order (the files' order): ``parts`` is checked against every table, and a
    # generator would reach the second one empty
    tables = list(source.tables) if tables is None else list(as_sequence(tables, "tables"))
    if parts is not None:
        # no table has more parts than the largest: an iterable is read no further than that
        most = max(spec[1] for spec in source.tables.values())
        parts = as_sequence(
            parts, "parts", what="must be an iterable of part numbers", maximum=most
        )
    out = []
    for table in tables:
        check_choice(table, source.tables, "table")
        pattern, count, *first = source.tables[table]
        first = first[0] if first else 0
        if count == 1:
            if parts is not None and first not in as_parts(parts, count=1_000_000, where=name):
                raise InvalidInputError(
                    f"parts: {list(parts)} — {name}/{table} has a single part ({first}); leave "
                    "--parts out for it"
                )
            wanted = [first]
        else:
            given = range(first, first + count) if parts is None else parts
            wanted = as_parts(given, first=first, count=count, where=f"{name}/{table}")
        for part in wanted:
            out.append(pattern.format(part=int(part)))
    return out


def _sha256(path: Path) -> str:
    """SHA-256 of a file, streamed."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


#: the schemes a mirror's address may use (what urllib opens: a web server, or a local copy)
MIRROR_SCHEMES = ("http", "https", "file")


def _as_base_url(value: object, name: str = "base_url") -> str | None:
    """``value``, a mirror's address (None: the sources' own), or an error naming ``name``: text
    with a scheme of :data:`MIRROR_SCHEMES`, a host for http(s), and no blank (urllib would raise
    its own ValueError naming neither the option nor the value at the first download)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(
            f"{name} = {value!r}: expected a URL (text), got {type(value).__name__}"
        )
    parts = urllib.parse.urlsplit(value)
    if (
        parts.scheme not in MIRROR_SCHEMES
        or (parts.scheme != "file" and not parts.netloc)
        or any(c.isspace() for c in value)
    ):
        raise InvalidInputError(
            f"{name} = {value!r}: expected the URL of a mirror, http://host/..., https://host/... "
            "or file:///folder"
        )
    return value


def fetch(
    name: str,
    *,
    tables: Iterable[str] | None = None,
    parts: Iterable[int] | None = None,
    dest: os.PathLike[str] | str | None = None,
    base_url: str | None = None,
    progress: bool = True,
    timeout: float = 60.0,
) -> list[Path]:
    """Download the files of ``name`` (see :data:`SOURCES`) into ``dest``, with checksums and a
    progress bar.

    A file already there whose SHA-256 matches the published one (:data:`KNOWN_SHA256`), or that has
    none published, is kept; a download goes to a ``.part`` file renamed when complete; archives
    listed in the source's ``unpack`` are unpacked after download.

    Parameters
    ----------
    name : str
        A trace of :data:`SOURCES`.
    tables : iterable of str, optional
        Tables to fetch (default: all of the trace).
    parts : iterable of int, optional
        Part numbers of sharded tables (default: all).
    dest : str or os.PathLike, optional
        The trace directory (default :func:`fairlib.paths.trace_dir`); files go to
        ``dest/<folder>``.
    base_url : str, optional
        Download from this mirror instead of the source's URL (http, https or file).
    progress : bool, default True
        Show a progress bar per file and print each file's checksum.
    timeout : float, default 60.0
        Seconds to wait for the server before giving up.

    Returns
    -------
    list of pathlib.Path
        The local paths (of the unpacked files, for archives).

    Raises
    ------
    InvalidInputError
        When the name, a table or a part is unknown, ``dest`` is not a directory path (also:
        blank, starting with ``~``, a ``PurePath`` of another system's flavour) or ``base_url``
        is not an http(s) or file URL.
    RuntimeError
        Naming the URL on an HTTP or network error, and on a checksum mismatch (the downloaded file
        is removed).
    """
    from tqdm import tqdm

    rel_paths = files_for(name, tables, parts)  # refuses an unknown name
    base_url = _as_base_url(base_url)
    source = SOURCES[name]
    if dest is not None:
        if not isinstance(dest, (str, os.PathLike)):
            raise InvalidInputError(f"dest = {dest!r}: must be a directory path")
        dest = path_text(dest, "dest", "directory")
        for parent in [Path(dest), *Path(dest).parents]:
            if parent.exists() and not parent.is_dir():
                what = _entry_kind(parent.stat().st_mode)
                raise InvalidInputError(
                    f"dest = {str(dest)!r}: {parent} is {what}, not a directory"
                )
    root = (Path(dest) if dest is not None else paths.trace_dir()) / source.folder
    base = (base_url or source.base_url).rstrip("/")
    done = []
    for rel in rel_paths:
        target = root / rel
        known = KNOWN_SHA256.get((name, rel))
        if target.is_file() and (known is None or _sha256(target) == known):
            if source.unpack and rel in source.unpack:  # downloaded earlier: unpacked too?
                target = _unpack_or_discard(target, root, *source.unpack[rel])
            done.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        url = f"{base}/{rel}"
        partial = target.with_name(target.name + ".part")
        have = partial.stat().st_size if partial.is_file() else 0
        request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                resumed = (
                    have > 0 and response.status == 206
                )  # else the server sends the whole file again
                total = int(response.headers.get("Content-Length") or 0) or None
                out = open(partial, "ab" if resumed else "wb")
                with (
                    out,
                    tqdm(
                        total=(total + have if resumed and total else total),
                        initial=have if resumed else 0,
                        unit="B",
                        unit_scale=True,
                        desc=rel,
                        disable=not progress,
                        leave=False,
                    ) as bar,
                ):
                    for block in iter(lambda: response.read(1 << 16), b""):
                        out.write(block)
                        bar.update(len(block))
        except urllib.error.HTTPError as exc:
            if (
                exc.code == 416
            ):  # the range is past the end: the .part file is stale; start afresh next time
                partial.unlink(missing_ok=True)
            raise RuntimeError(f"{url}: download failed ({exc})") from None
        except (
            urllib.error.URLError,
            OSError,
        ) as exc:  # the .part file stays: the next fetch resumes it
            raise RuntimeError(
                f"{url}: download failed ({exc}); run the same fetch again to resume"
            ) from None
        digest = _sha256(partial)
        if known is not None and digest != known:
            partial.unlink()
            raise RuntimeError(
                f"{url}: SHA-256 {digest} does not match the published {known}; file removed"
            )
        os.replace(partial, target)
        if progress:
            print(f"{target}  sha256 {digest}{'  (verified)' if known else ''}", file=sys.stderr)
        if source.unpack and rel in source.unpack:
            target = _unpack_or_discard(target, root, *source.unpack[rel])
        done.append(target)
    return done


def _unpack_or_discard(
    archive: Path, root: Path, member: str, written: str, compress: bool
) -> Path:
    """The unpacked file (unpacking now if it is missing); an archive that cannot be unpacked is
    removed, so the next fetch downloads it again instead of counting it as done."""
    out = root / written
    if out.is_file():
        return out
    try:
        return _unpack(archive, root, member, written, compress)
    except RuntimeError as exc:
        archive.unlink(missing_ok=True)
        raise RuntimeError(
            f"{exc}; the archive was removed: run the same fetch again to download it afresh"
        ) from None


#: what the notebooks read: {trace: (tables, parts)} (khamseashari2018_traces: Bitbrains VMs 1-150
#: of 2013-8, Google task_events parts 0-4 and machine_events; li2019: Google task_events parts 0-4)
NOTEBOOK_DATA = {
    "google": (["machine_events", "task_events"], list(range(5))),
    "bitbrains": (["rnd_2013-8"], list(range(1, 151))),
}


def fetch_for_notebooks(
    *, base_url: str | None = None, progress: bool = True, timeout: float = 30.0
) -> dict[str, str]:
    """Fetch :data:`NOTEBOOK_DATA` for each trace not found by :func:`fairlib.paths.find_traces`.

    Parameters
    ----------
    base_url : str, optional
        Download from this mirror instead of the sources' URLs (http, https or file).
    progress : bool, default True
        Show the downloads' progress.
    timeout : float, default 30.0
        Seconds to wait for a server.

    Returns
    -------
    dict of str to str
        ``{trace: "found at <dir>" | "fetched to <dir>" | "unavailable: <reason>"}``; it never
        raises on a network failure (the notebooks then run on synthetic stand-ins, labelled as
        such: :func:`fairlib.traces.real_or_synthetic`).

    Raises
    ------
    InvalidInputError
        When ``base_url`` is not an http(s) or file URL (checked before anything is fetched).
    """
    base_url = _as_base_url(base_url)
    status = {}
    for name, (tables, parts) in NOTEBOOK_DATA.items():
        found = paths.find_traces(SOURCES[name].folder)
        if found is not None and all(
            (found / rel).is_file() or (found / f"{rel}.gz").is_file()
            for rel in files_for(name, tables, parts)
        ):
            status[name] = f"found at {found}"
            continue
        try:
            fetch(
                name,
                tables=tables,
                parts=parts,
                base_url=base_url,
                progress=progress,
                timeout=timeout,
            )
            status[name] = f"fetched to {paths.trace_dir() / SOURCES[name].folder}"
        except RuntimeError as exc:
            status[name] = f"unavailable: {exc}"
    return status


def _unpack(archive: Path, root: Path, member: str, written: str, compress: bool) -> Path:
    """Extract ``member`` (matched by file name) from a tar archive to ``root/written``,
    gzip-compressed when ``compress``; raises RuntimeError naming the archive when the member is
    missing or the archive broken."""
    out = root / written
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(archive) as tar:
            found = [m for m in tar.getmembers() if m.isfile() and Path(m.name).name == member]
            if not found:
                raise RuntimeError(
                    f"{archive}: no member named {member!r} "
                    f"(has {[m.name for m in tar.getmembers()][:5]})"
                )
            src = tar.extractfile(found[0])
            if src is None:
                raise RuntimeError(f"{archive}: member {member!r} is not a regular file")
            partial = out.with_name(out.name + ".part")
            opener = gzip.open if compress else open
            with opener(partial, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise RuntimeError(f"{archive}: cannot unpack ({exc})") from None
    os.replace(partial, out)
    return out


def main(argv: list[str] | None = None) -> int:
    """The command line, ``python -m fairlib.traces.fetch [NAME] [--notebooks] ...``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``): a trace name with ``--tables``, ``--parts``,
        ``--dest``, ``--base-url``; ``--list``; or ``--notebooks`` (what the notebooks read, where
        it is not found already).

    Returns
    -------
    int
        The exit status: 0 on success (``--notebooks`` also on a network failure, which it reports),
        1 when a download failed or the destination cannot be written (the message names it), 2
        when an argument is refused (its message names it): a missing name (without ``--list`` or
        ``--notebooks``), an unknown name or table, a ``--dest`` that is not an absolute
        directory (blank, relative, ``~``, whitespace at an end), an option ``--notebooks`` or
        ``--list`` would ignore, an option or a list entry given twice.
    """
    argv = as_argv(argv)
    ap = command_parser(prog="python -m fairlib.traces.fetch", description=__doc__.split("\n")[0])
    ap.add_argument("name", nargs="?", help=f"one of {sorted(SOURCES)}")
    ap.add_argument("--tables", nargs="+", help="tables to fetch (default: all of the trace)")
    ap.add_argument(
        "--parts", nargs="+", type=cli_integer, help="part numbers of sharded tables (default: all)"
    )
    ap.add_argument("--dest", help="trace directory (default: FAIRLIB_TRACE_DIR or data/traces)")
    ap.add_argument("--base-url", help="download from this mirror instead")
    ap.add_argument("--list", action="store_true", help="list the traces, tables and licences")
    ap.add_argument(
        "--notebooks",
        action="store_true",
        help="fetch what the notebooks read, where it is not found already; on a network failure "
        "say so and exit 0 (the notebooks then run on labelled synthetic data)",
    )
    args = ap.parse_args(argv)
    # options the mode given would ignore are refused, naming them, as argparse refuses its own
    defaults = ap.parse_args([])
    given = [
        ("name" if key == "name" else "--" + key.replace("_", "-"))
        for key, value in vars(args).items()
        if value != getattr(defaults, key)
    ]
    for mode, keeps in (("--notebooks", ("--base-url",)), ("--list", ())):
        if mode in given:
            ignored = [g for g in given if g != mode and g not in keeps]
            if ignored:
                ap.error(f"{mode} takes no {', '.join(ignored)}: it would ignore them")
    if args.name is None and not (args.list or args.notebooks):
        options = [g for g in given if g != "name"]
        ap.error(
            f"the trace NAME is missing (one of {', '.join(sorted(SOURCES))})"
            + (f"; {', '.join(options)} need{'s' * (len(options) == 1)} a NAME" if options else "")
            + "; --list lists the traces, --notebooks fetches what the notebooks read"
        )
    try:
        _as_base_url(args.base_url, "--base-url")
        if args.name is not None:
            check_choice(args.name, sorted(SOURCES), "name")
            if args.tables is not None:
                for i, table in enumerate(args.tables):
                    check_choice(table, list(SOURCES[args.name].tables), f"--tables[{i}]")
        if args.dest is not None:
            paths._absolute_directory(args.dest, "--dest")
    except InvalidInputError as exc:  # a usage error, as argparse's own
        print(f"fetch: {exc}", file=sys.stderr)
        return 2
    if args.notebooks:
        for name, state in fetch_for_notebooks(base_url=args.base_url).items():
            print(
                f"fetch {name}: {state}"
                + (
                    "; its notebooks will run on synthetic data in the real formats"
                    if state.startswith("unavailable")
                    else ""
                ),
                file=sys.stderr,
            )
        return 0
    if args.list:
        for key, src in SOURCES.items():
            tables = ", ".join(
                f"{t} ({spec[1]} part{'s' if spec[1] > 1 else ''})"
                for t, spec in src.tables.items()
            )
            print(
                f"{key:<12} {src.base_url}\n             tables: {tables}\n             "
                f"licence: {src.licence}"
            )
        return 0
    try:
        fetch(
            args.name, tables=args.tables, parts=args.parts, dest=args.dest, base_url=args.base_url
        )
    except InvalidInputError as exc:  # a bad argument: a usage error, as argparse's own
        print(f"fetch: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # the download failed
        print(f"fetch: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the destination cannot be written
        where = args.dest if args.dest is not None else str(paths.trace_dir())
        print(f"fetch: cannot write into {where!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
