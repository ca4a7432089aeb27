"""Project paths that never depend on the working directory.

Full-mode outputs are tracked in git (``figures/<key>/``, ``data/results/<key>/``); quick-mode
outputs go under ``build/quick/`` so a smoke run never touches tracked files.  Environment
variables redirect output for tests and for users who keep data elsewhere:

``FAIRLIB_BUILD_DIR``
    replaces ``build/`` (quick-mode outputs, executed notebooks, run manifest, caches).
``FAIRLIB_OUTPUT_DIR``
    redirects *full-mode* outputs to ``<dir>/figures/<key>`` and ``<dir>/results/<key>``
    (``run_all.py --verify`` re-executes the notebooks there, never touching the committed outputs).
``FAIRLIB_TRACE_DIR``
    where real trace files are looked for first (see :func:`trace_dirs`).
``FAIRLIB_SHARED_TRACES``
    replaces ``../shared/data/traces``, the last place looked (a path that does not exist: a
    reader's clone).

Each names a directory by its absolute path (``FAIRLIB_TRACE_DIR`` several, separated by
``os.pathsep``, each once and none empty: ``/a::/b``, ``/a:``, ``:`` and ``/a:/a`` are refused; the
others one, and a separator in them is refused); empty means unset. A
directory need not exist yet (the first ``FAIRLIB_TRACE_DIR`` entry is where ``fetch`` creates
one; a trace not found lists the directories searched, marking those that do not exist). A value
naming an existing file, a blank value, a value with whitespace at an end (``"/tmp/x "``), a
relative path (``build``, ``~/fl``: ``~`` is the shell's, expanded only at the start of a word it
reads) and a value a path argument may not be (:func:`fairlib._validate.path_text`: a control
character, a part that shows nothing, has whitespace at an end or is too long) are each an
:class:`~fairlib._validate.InvalidInputError` naming the variable: a typo there would otherwise
write outputs, or look for traces, somewhere no one reads, and a relative path would make them
depend on the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
FIGURES = ROOT / "figures"
RESULTS = DATA / "results"
NOTEBOOKS = ROOT / "notebooks"


def _env_dir(variable: str) -> Path | None:
    """The directory environment variable ``variable`` names (it need not exist yet), or None when
    it is unset or empty; an existing file, or a path that cannot be looked up (a symlink loop), is
    an error naming the variable."""
    return next(iter(_env_dirs(variable, several=False)), None)


def _env_dirs(variable: str, *, several: bool) -> list[Path]:
    """The folders the environment variable ``variable`` names (none when unset or empty):
    absolute paths only, one unless ``several``; a blank, relative or ``~`` value is refused naming
    the variable, since a relative folder would depend on the working directory, and so are an
    empty entry and a folder named twice in a list of several."""
    from ._validate import InvalidInputError

    value = os.environ.get(variable, "")
    if not several and os.pathsep in value:
        # one directory: a list here would be read as one odd path and silently never found
        raise InvalidInputError(
            f"{variable} = {value!r}: names one directory, not several separated by "
            f"{os.pathsep!r} (FAIRLIB_TRACE_DIR takes several)"
        )
    if not value:
        return []  # empty means unset
    out: list[Path] = []
    for i, part in enumerate(value.split(os.pathsep) if several else [value]):
        if several and not part:
            # an empty entry ("/a::/b", "/a:", ":") was dropped silently: a typo, or a variable
            # expanded to nothing, would go unseen
            raise InvalidInputError(
                f"{variable} = {value!r}: entry {i} is empty (directories are separated by one "
                f"{os.pathsep!r}, with none before the first or after the last)"
            )
        path = _as_directory(part, variable, value, f" ({part!r})" if several else "")
        same = [j for j, seen in enumerate(out) if _same_directory(seen, path)]
        if same:
            # compared resolved: "/t", "/t/../t", "//t" and a link to /t are one directory
            raise InvalidInputError(
                f"{variable} = {value!r}: the directory {part!r} is named twice (also as entry "
                f"{same[0]}, {str(out[same[0]])!r}; each is searched once)"
            )
        out.append(path)
    return out


def _same_directory(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one directory once resolved (``..``, repeated separators and
    symbolic links followed; a part that does not exist is compared as written)."""
    return os.path.realpath(a) == os.path.realpath(b)


def _absolute_directory(text: str, name: str) -> Path:
    """``text``, a directory given on a command line or as an argument, by the rule of the
    ``FAIRLIB_*`` directory variables: an absolute path (not relative to the working directory, not
    starting with ``~``, which only a shell expands), not blank, without whitespace at either end,
    and not an existing file. It need not exist yet.

    Parameters
    ----------
    text : str
        The path.
    name : str
        The option's or argument's name, for the message.

    Returns
    -------
    pathlib.Path
        The directory.

    Raises
    ------
    InvalidInputError
        When ``text`` is not text, is blank, has whitespace at an end, is relative (``~`` included),
        holds a control character or a part no path argument may have
        (:func:`fairlib._validate.path_text`), or names an existing file.
    """
    from ._validate import as_instance

    return _as_directory(as_instance(text, str, name), name, text, "")


def _as_directory(part: str, name: str, value: str, which: str) -> Path:
    """One directory of ``value`` (the variable's or option's whole text; ``which`` names the part
    in the message when there are several): see :func:`_absolute_directory`."""
    import stat

    from ._validate import InvalidInputError, _path_mode, _shows, path_text

    if not _shows(part):
        raise InvalidInputError(f"{name} = {value!r}: a blank directory{which}")
    if part != part.strip():
        raise InvalidInputError(
            f"{name} = {value!r}: whitespace at an end of the directory{which} (a stray space "
            "would name another folder)"
        )
    path = Path(part)
    if not path.is_absolute():
        # relative to the working directory, the outputs or traces would move with it; "~" is
        # expanded by a shell only where it starts a word, never by Python
        raise InvalidInputError(
            f"{name} = {value!r}: must be an absolute path{which}, not relative to the "
            "working directory"
            + (" (write $HOME for ~: the shell left it unexpanded)" if part[:1] == "~" else "")
        )
    try:
        # the rules of a path argument: no control character, every part shown, none with
        # whitespace at an end or longer than a file system takes
        path_text(part, name, "directory")
    except InvalidInputError as exc:
        raise InvalidInputError(
            f"{name} = {value!r}: {str(exc).split(': ', 1)[1]}{which}"
        ) from None
    mode = _path_mode(path, name)  # a symlink loop is refused, not read as absent
    if mode is not None and not stat.S_ISDIR(mode):
        raise InvalidInputError(
            f"{name} = {value!r}: must name a directory, not a file"
            + (f" ({part!r} is a file)" if which else "")
        )
    return path


#: the project's reference excerpts beside the checkout (absent in a reader's clone);
#: ``FAIRLIB_SHARED_TRACES`` moves it (CI points it at nothing to run as a reader's clone would)
SHARED_TRACES = _env_dir("FAIRLIB_SHARED_TRACES") or ROOT.parent / "shared" / "data" / "traces"

MODES = ("quick", "full")


def build_dir() -> Path:
    """Scratch directory for quick-mode outputs, executed notebooks and caches.

    Returns
    -------
    pathlib.Path
        ``$FAIRLIB_BUILD_DIR`` when set, else ``build/`` in the checkout (it need not exist yet).
    """
    return _env_dir("FAIRLIB_BUILD_DIR") or ROOT / "build"


def _check_mode(mode: str) -> str:
    from ._validate import check_choice

    return check_choice(mode, MODES, "mode")


def check_key(key: str) -> str:
    """A notebook key, checked to be a safe folder name under ``figures/`` and ``data/results/``.

    Parameters
    ----------
    key : str
        The notebook's key (``"metin2025"``): letters, digits, ``_`` and ``-`` only, starting with a
        letter or digit, so it cannot point elsewhere (``../x``), and at most :data:`MAX_KEY_LENGTH`
        characters.

    Returns
    -------
    str
        ``key`` unchanged.

    Raises
    ------
    InvalidInputError
        When ``key`` is not a string of those characters, or is longer than
        :data:`MAX_KEY_LENGTH`.
    """
    return _check_file_name(key, "key", maximum=MAX_KEY_LENGTH)


#: the longest notebook key (:func:`check_key`): it names folders and files (``<key>.ipynb``,
#: ``claims/<key>.toml``), and a table or page shows it whole
MAX_KEY_LENGTH = 64
#: the longest other name that becomes a folder or file name (a table's or figure's name, a trace
#: folder, a sweep's cache): well under the 255 bytes a file system allows one name, with room for
#: an extension
MAX_FILE_NAME_LENGTH = 128


def _check_file_name(value: object, name: str, *, maximum: int = MAX_FILE_NAME_LENGTH) -> str:
    """``value`` (the argument ``name``) becomes a folder or file name: letters, digits, ``_`` and
    ``-`` only, starting with a letter or digit, at most ``maximum`` characters (a longer one would
    fail only when the file is written, with ``OSError: File name too long``)."""
    import re

    from ._validate import InvalidInputError, _short

    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-]*", value):
        raise InvalidInputError(
            f"{name} = {_short(value)}: must be letters, digits, '_' and '-' (it names an output "
            "folder or file)"
        )
    if len(value) > maximum:
        raise InvalidInputError(
            f"{name} = {_short(value)}: {len(value)} characters, must be at most {maximum} (it "
            "names an output folder or file)"
        )
    return value


def figures_dir(key: str, mode: str = "full") -> Path:
    """Directory for the figures of notebook ``key``.

    Parameters
    ----------
    key : str
        The notebook's key (:func:`check_key`).
    mode : {"full", "quick"}, default "full"
        Full-mode figures are tracked (``figures/<key>``, or ``$FAIRLIB_OUTPUT_DIR/figures/<key>``);
        quick-mode figures go to ``<build>/quick/figures/<key>``.

    Returns
    -------
    pathlib.Path
        The directory (not created).

    Raises
    ------
    InvalidInputError
        When ``key`` is not a safe folder name or ``mode`` is neither ``"full"`` nor ``"quick"``.
    """
    check_key(key)
    if _check_mode(mode) == "quick":
        return build_dir() / "quick" / "figures" / key
    out = _env_dir("FAIRLIB_OUTPUT_DIR")
    return (Path(out) / "figures" if out else FIGURES) / key


def results_root(mode: str = "full") -> Path:
    """Directory holding every notebook's results directory for ``mode``.

    Parameters
    ----------
    mode : {"full", "quick"}, default "full"
        ``"full"``: ``data/results`` (or ``$FAIRLIB_OUTPUT_DIR/results``); ``"quick"``:
        ``<build>/quick/results``.

    Returns
    -------
    pathlib.Path
        The directory (not created).

    Raises
    ------
    InvalidInputError
        When ``mode`` is neither ``"full"`` nor ``"quick"``.
    """
    if _check_mode(mode) == "quick":
        return build_dir() / "quick" / "results"
    out = _env_dir("FAIRLIB_OUTPUT_DIR")
    return Path(out) / "results" if out else RESULTS


def executed_dir() -> Path:
    """Where full-mode runs publish the executed notebooks a reader opens.

    Returns
    -------
    pathlib.Path
        ``executed/`` in the checkout (beside ``notebooks/``, so relative links work in both), or
        ``$FAIRLIB_OUTPUT_DIR/executed`` when outputs are redirected.
    """
    out = _env_dir("FAIRLIB_OUTPUT_DIR")
    return Path(out) / "executed" if out else ROOT / "executed"


def results_dir(key: str, mode: str = "full") -> Path:
    """Directory for the tables and ``claims.json`` of notebook ``key``.

    Parameters
    ----------
    key : str
        The notebook's key (:func:`check_key`).
    mode : {"full", "quick"}, default "full"
        Which outputs (:func:`results_root`).

    Returns
    -------
    pathlib.Path
        ``results_root(mode) / key`` (not created).

    Raises
    ------
    InvalidInputError
        When ``key`` is not a safe folder name or ``mode`` is neither ``"full"`` nor ``"quick"``.
    """
    return results_root(mode) / check_key(key)


#: the trace folders the notebooks use, by source (``fetch`` names)
TRACE_FOLDERS = {
    "google": "google_clusterdata_2011_2",
    "bitbrains": "bitbrains_gwa_t12",
    "alibaba": "alibaba_clusterdata",
}


def trace_dirs() -> list[Path]:
    """Directories searched for real trace excerpts, in order (the library and the tests use it
    alike).

    Returns
    -------
    list of pathlib.Path
        1. every directory in ``$FAIRLIB_TRACE_DIR`` (several may be given, separated by
           ``os.pathsep``; an empty entry or a directory named twice, compared once resolved
           (``/t/../t``, ``//t`` and a symbolic link to ``/t`` are ``/t``), is an
           :class:`~fairlib._validate.InvalidInputError` naming the variable);
        2. ``data/traces/`` in the checkout (where ``python -m fairlib.traces.fetch`` writes);
        3. :data:`SHARED_TRACES`, ``../shared/data/traces`` beside the checkout (the project's
           reference excerpts, when present).

        A directory is listed once, at its first place: naming ``data/traces`` (or the shared
        one) in ``$FAIRLIB_TRACE_DIR`` moves it to the front rather than searching it twice.

    Raises
    ------
    InvalidInputError
        When ``$FAIRLIB_TRACE_DIR`` holds an empty entry, a directory twice, or an entry that is
        not an absolute directory path.
    """
    out: list[Path] = []
    for d in [*_env_dirs("FAIRLIB_TRACE_DIR", several=True), DATA / "traces", SHARED_TRACES]:
        if not any(_same_directory(d, seen) for seen in out):
            out.append(d)
    return out


def find_traces(folder: str) -> Path | None:
    """The first ``<dir>/<folder>`` over :func:`trace_dirs` that holds any finished file, or None.

    Parameters
    ----------
    folder : str
        A trace folder name such as ``"google_clusterdata_2011_2"`` (see :data:`TRACE_FOLDERS`).

    Returns
    -------
    pathlib.Path or None
        The folder, or None when no directory holds a finished file of it (a failed fetch leaves
        empty folders and ``.part`` files, which do not count).
    """
    _check_file_name(folder, "folder")
    for d in trace_dirs():
        if _holds_data(d / folder):
            return d / folder
    return None


def _holds_data(folder: Path) -> bool:
    """A folder with at least one finished file (a failed fetch leaves empty folders and ``.part``
    files)."""
    return folder.is_dir() and any(
        p.is_file() and not p.name.endswith(".part") for p in folder.rglob("*")
    )


def missing_traces_message(folder: str) -> str:
    """Why real data is absent and how to get it (the skip reason of tests that need it).

    Parameters
    ----------
    folder : str
        The trace folder looked for (a value of :data:`TRACE_FOLDERS`, or any folder name).

    Returns
    -------
    str
        One sentence naming the folder, the directories searched and the ``fetch`` command that
        downloads it.

    Raises
    ------
    InvalidInputError
        When ``folder`` is not a folder name (letters, digits, ``_`` and ``-``, at most
        :data:`MAX_FILE_NAME_LENGTH` characters; None included).

    Examples
    --------
    >>> missing_traces_message("google_clusterdata_2011_2").startswith(
    ...     "real trace folder 'google_clusterdata_2011_2' not found in "
    ... )
    True
    """
    _check_file_name(folder, "folder")
    name = next((k for k, v in TRACE_FOLDERS.items() if v == folder), folder)
    return (
        f"real trace folder {folder!r} not found in "
        f"{', '.join(str(d) + ('' if d.is_dir() else ' (does not exist)') for d in trace_dirs())}; "
        f"get it with `python -m fairlib.traces.fetch {name}` or point FAIRLIB_TRACE_DIR at a copy"
    )


def trace_dir() -> Path:
    """Where :mod:`fairlib.traces.fetch` writes.

    Returns
    -------
    pathlib.Path
        The first ``$FAIRLIB_TRACE_DIR`` entry, else ``data/traces`` in the checkout.
    """
    return trace_dirs()[0]
