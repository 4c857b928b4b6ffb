"""Reading a user's CSV files for the command line: one reader that names the file in every
error, the delimiter sniffed, the contact matrix, the columns to model and their kinds, and new
rows read by a fitted model's schema.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from bnclassify.study.csv_tables import csv_delimiter
>>> path = Path(tempfile.mkdtemp()) / "table.csv"
>>> _ = path.write_text("a;b;class" + chr(10) + "1;2;x" + chr(10))
>>> csv_delimiter(path)  # doctest: +ELLIPSIS
note: ... is read with the delimiter ';' (its header has no comma; choose another with --sep)
';'
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import identifier_columns, row_number_columns
from ..data.identifiers import BLOCK_CELLS
from ..structure import check_weight_matrix

#: Exceptions that mean "bad input": reported in one line, no traceback. (Loaders and
#: estimators raise ValueError naming the column and value; others are bugs.)
INPUT_ERRORS = (OSError, ValueError, pd.errors.ParserError)


class InputError(Exception):
    """Bad input found by the command itself (reported in one line)."""


def existing_file(path, what) -> Path:
    """``path`` as a Path, or an InputError saying it is missing or a directory."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{what} {path} is a directory; give a CSV file.")
    if not path.is_file():
        raise InputError(f"{what} not found: {path}")
    return path


def read_named_csv(path, reader=pd.read_csv, **options):
    """``reader(path, **options)`` (``pd.read_csv`` or a loader built on it) whose empty-file,
    encoding and tokenizing errors name the file: the one CSV reader of the command line.

    A workbook or another binary file is recognised by its first bytes and said so."""
    binary = binary_kind(path)
    if binary is not None:
        raise InputError(
            f"{path} is {binary}, not CSV text: save or export it as a CSV file (UTF-8) first."
        )
    try:
        return reader(path, **options)
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty: expected a header row and data rows.") from None
    except UnicodeDecodeError as error:
        raise InputError(not_utf8(path, error)) from None
    except pd.errors.ParserError as error:
        raise InputError(f"{path} is not a well-formed CSV table: {error}".strip()) from None


#: The first bytes of the files users save by mistake under a .csv name, and what they are.
BINARY_SIGNATURES = {
    b"PK\x03\x04": "a zip archive (an Excel .xlsx or OpenDocument .ods workbook is one)",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1": "an Excel .xls workbook (an OLE2 file)",
    b"\x1f\x8b": "gzip-compressed (name it .csv.gz, which pandas reads)",
    b"%PDF": "a PDF document",
}


def binary_kind(path) -> str | None:
    """What ``path`` is when its first bytes say it is not text (:data:`BINARY_SIGNATURES`),
    else None.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "table.csv"
    >>> _ = path.write_bytes(b"PK\x03\x04" + bytes(26))
    >>> binary_kind(path)
    'a zip archive (an Excel .xlsx or OpenDocument .ods workbook is one)'
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        return None  # the reader says why
    return next((what for magic, what in BINARY_SIGNATURES.items() if head.startswith(magic)), None)


def not_utf8(path, error: UnicodeDecodeError) -> str:
    """Why ``path`` is not UTF-8 text, at the first byte that is not (pandas decodes in
    blocks, so its ``error.start`` counts from the start of a block, not of the file).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "latin.csv"
    >>> _ = path.write_bytes("a,b".encode() + bytes([10]) + "café,x".encode("latin-1"))
    >>> message = not_utf8(path, UnicodeDecodeError("utf-8", b"", 0, 1, "invalid byte"))
    >>> message[message.index("byte"):].split(",")[0]
    'byte 7 (line 2) is 0xe9'
    """
    data = Path(path).read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return f"{path} is UTF-16 text, not UTF-8: re-save it as UTF-8."
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exact:
        at = exact.start
        return (
            f"{path} is not UTF-8 text: byte {at} (line {data.count(bytes([10]), 0, at) + 1}) "
            f"is 0x{data[at]:02x}, which UTF-8 does not allow there (a Latin-1 or Windows-1252 "
            "file, e.g. from Excel, often holds such bytes); re-save it as UTF-8."
        )
    return f"{path} is not UTF-8 text ({error.reason}); re-save it as UTF-8."


def column_numbers(column: pd.Series, why: str) -> pd.Series:
    """``column`` as floats; a cell that is not a number is an InputError that starts with
    ``why`` (which names the file and the column) and gives the row and the value."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column):
        return column.astype(float)
    numbers = pd.to_numeric(column.astype(object).where(column.notna()), errors="coerce")
    bad = column.notna() & numbers.isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{why}, but data row {row + 1} holds {column.iloc[row]!r}, not a number.")
    return numbers.astype(float)


#: Delimiters a CSV file's header line is sniffed for when ``--sep`` is not given.
DELIMITERS = ",;\t|"


def csv_delimiter(path: Path, sep=None) -> str:
    """``sep``, or the delimiter of ``path``'s header line (a comma unless the header holds
    no comma and another of :data:`DELIMITERS`); a note says when it is not a comma."""
    if sep is not None:
        return "\t" if sep in ("\\t", "tab") else sep
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            header = handle.readline()
    except UnicodeDecodeError:
        return ","  # the reader names the file and the byte
    try:
        found = csv.Sniffer().sniff(header, delimiters=DELIMITERS).delimiter
    except csv.Error:
        return ","
    if found != "," and "," not in header:
        shown = "\\t" if found == "\t" else found
        print(
            f"note: {path} is read with the delimiter '{shown}' (its header has no comma; "
            "choose another with --sep)"
        )
        return found
    return ","


def read_contact_matrix(path, features) -> pd.DataFrame:
    path = existing_file(path, "contact matrix file")
    try:
        matrix = read_named_csv(path, index_col=0)
    except pd.errors.EmptyDataError:
        raise InputError(f"contact matrix file {path} is empty.") from None
    if matrix.shape[0] != matrix.shape[1]:
        plain = read_named_csv(path)  # a header row but no label column
        if plain.shape[0] == plain.shape[1]:
            matrix = plain.set_axis(plain.columns, axis=0)
    try:
        return check_weight_matrix(matrix, features, name=f"contact matrix {path}")
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def chosen_columns(X: pd.DataFrame, args, path) -> pd.DataFrame:
    """The --csv features to model: without the row-index, row-number and identifier columns
    (unless --keep), without the columns that hold no value, without --drop, and with the
    --kind of each named column."""
    for option in ("drop", "keep"):
        unknown = [c for c in getattr(args, option) or [] if c not in X.columns]
        if unknown:
            raise InputError(
                f"--{option}: {path} has no column {unknown[0]!r}; columns are {list(X.columns)}."
            )
    keep = set(args.keep or [])
    found = {c: "a row number (0 .. n-1 or 1 .. n down the rows)" for c in row_number_columns(X)}
    found.update(identifier_columns(X))
    found = {c: why for c, why in found.items() if c not in keep}
    for column, why in found.items():
        print(
            f"note: left out {column!r}: it looks like {why}, which cannot generalise to "
            f"new rows (model it anyway with --keep {column!r})"
        )
    empty = [c for c, none in zip(X.columns, X.isna().all().tolist(), strict=True) if none]
    empty = [c for c in empty if c not in found]
    if empty:
        listed = ", ".join(repr(c) for c in empty)
        print(f"note: left out {listed}: no row of {path} holds a value in it")
    dropped = [c for c in X.columns if c in found or c in empty or c in (args.drop or [])]
    X = X.drop(columns=dropped)
    if X.shape[1] == 0:
        raise InputError(f"{path}: no feature column is left to model (see the notes above).")
    for column, kind in args.kind or []:
        if column not in X.columns:
            raise InputError(
                f"--kind: no feature column {column!r}; features are {list(X.columns)}."
            )
        X[column] = as_kind(X[column], kind, column, path)
    return X


#: A number written with a decimal comma (``3,14``, ``-0,5``), perhaps with thousands dots.
_DECIMAL_COMMA = r"[-+]?\d{1,3}(?:\.\d{3})*,\d+|[-+]?\d+,\d+"


def decimal_comma_columns(X: pd.DataFrame) -> list:
    """The text columns whose every value reads as a number written with a decimal comma.

    Examples
    --------
    >>> frame = pd.DataFrame({"price": ["3,5", "12,25", None], "name": ["a,b", "c", "d"]})
    >>> decimal_comma_columns(frame)
    ['price']
    """
    positions = [
        j
        for j, dtype in enumerate(X.dtypes.tolist())
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
    ]
    found = []
    step = max(1, BLOCK_CELLS // max(len(X), 1))
    pattern = re.compile(_DECIMAL_COMMA)
    for start in range(0, len(positions), step):  # a block of columns at a time
        chunk = positions[start : start + step]
        cells = X.iloc[:, chunk].to_numpy(dtype=object)
        codes, distinct = pd.factorize(cells.ravel(order="F"))  # missing cells: -1
        # each distinct text matched once, not each cell (a wide table repeats few values)
        matches = np.array([pattern.fullmatch(str(v)) is not None for v in distinct] + [True])
        codes = codes.reshape(len(chunk), -1)
        every = matches[codes].all(axis=1) & (codes >= 0).any(axis=1)  # -1: the last, True
        found += [X.columns[j] for j in np.asarray(chunk)[every]]
    return found


def decimal_comma_note(X: pd.DataFrame, path) -> None:
    """A note naming the columns written with decimal commas, which are read as categories."""
    found = decimal_comma_columns(X)
    if found:
        listed = ", ".join(repr(c) for c in found)
        example = X[found[0]].dropna().iloc[0]
        print(
            f"note: {path}: column(s) {listed} hold numbers written with a decimal comma "
            f"(e.g. {example!r}), read as categories here; pass --decimal ',' to read them "
            "as numbers"
        )


def as_kind(column: pd.Series, kind: str, name, path) -> pd.Series:
    """``column`` as categories (of its own values) or as numbers (``--kind``)."""
    if kind == "categorical":
        return column.astype("category")
    return column_numbers(column, f"{path}: column {name!r} is continuous (--kind {name}=...)")


def parse_kind(text):
    """``--kind COL=KIND``: (column, "categorical" | "continuous")."""
    column, sep, kind = text.rpartition("=")
    kind = kind.strip().lower()
    if not sep or not column or kind not in ("categorical", "continuous"):
        raise argparse.ArgumentTypeError(
            f"--kind takes COLUMN=categorical or COLUMN=continuous, got {text!r}"
        )
    return column, kind


def read_rows(path: Path, model, sep=None, decimal=None) -> pd.DataFrame:
    """The CSV file's rows as the Python API reads them: ``pd.read_csv`` (empty cells
    missing, as ``compare --csv`` reads its table), then each column as the model's schema
    takes it.

    A numeric column is what ``load(model).predict_proba(pd.read_csv(path))`` sees, so a
    category ``64.0`` learned from a column with empty cells matches the cell ``64``. A
    column whose learned categories are text (``--kinds categorical``) is read as text, so
    the cell ``1`` matches the category ``"1"``. A continuous column's cell that is not a
    number is refused, naming the file, column, row and value. Every column is kept (the
    model aligns its own by name; ``--id`` and ``--keep-input`` read the others).
    """
    path = existing_file(path, "data file")
    sep = csv_delimiter(path, sep)
    options = {"sep": sep, "decimal": decimal or ".", "keep_default_na": False, "na_values": [""]}
    frame = read_named_csv(path, **options)
    text = read_named_csv(path, dtype=str, **options)
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        if frame.shape[1] != model.n_features_in_:
            raise InputError(
                f"{path} has {frame.shape[1]} columns; the model (fitted without column names) "
                f"takes {model.n_features_in_}."
            )
        names = list(frame.columns)
    missing = [n for n in names if n not in frame.columns]
    if missing:
        hint = " (is it delimited by something else? pass --sep)" if frame.shape[1] == 1 else ""
        raise InputError(f"{path} lacks the model's columns {missing}{hint}.")
    schema = getattr(model, "schema_", None)
    # a binned column's categories are intervals: it reads numbers, as a density's does
    binned = [False] * len(names) if schema is None else list(schema.binned)
    for name, categories, numbers in zip(names, model.categories_, binned, strict=True):
        if categories is None or numbers:
            why = f"{path}: column {name!r} is continuous in the model"
            frame[name] = column_numbers(frame[name], why)
        elif len(categories) and all(isinstance(c, str) for c in categories):
            frame[name] = text[name]
    return frame
