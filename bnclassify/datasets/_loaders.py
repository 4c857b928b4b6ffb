"""Loaders for the data sets bundled with bnclassify."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ..data import row_number_columns

__all__ = [
    "capsid_structure_path",
    "load_car",
    "load_csv",
    "load_lactamase",
    "load_nursery",
    "load_p450",
    "load_vote",
]

_DATA = resources.files("bnclassify.datasets") / "data"
_DESCR = resources.files("bnclassify.datasets") / "descr"


def _as_categorical(column: pd.Series) -> pd.Series:
    """A column as a pandas Categorical whose categories are its sorted values."""
    values = column.dropna().unique()
    return column.astype(pd.CategoricalDtype(sorted(values), ordered=False))


def load_csv(
    path, target=None, *, kinds="categorical", return_X_y=False, descr="", sep=",", decimal="."
):
    """Load a CSV file: every column categorical (read as strings), or as pandas reads it.

    Parameters
    ----------
    path : str or path-like
        CSV file with one header row.
    target : str, optional
        Name of the class column; by default the last column (an empty
        ``Unnamed`` column left by a trailing comma on every line is dropped
        first, never taken as the target, nor is a last column that numbers
        the rows, ``0 .. n-1`` or ``1 .. n``: then the column before it, see
        :func:`bnclassify.data.row_number_columns`).
    kinds : {"categorical", "auto"}, default="categorical"
        ``"categorical"``: every feature is read as strings and becomes a pandas
        Categorical of the values in the file (what the study's data are).
        ``"auto"``: features keep the types ``pd.read_csv`` gives them
        (integers, floats, strings), so an estimator's default rule decides
        each column's kind (:func:`bnclassify.data.default_kind`). Empty cells
        are missing either way; the target is always categorical.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    descr : str, default=""
        Text stored as ``DESCR``.
    sep : str, default=","
        The field delimiter (e.g. ``";"`` or ``"\\t"``).
    decimal : str, default="."
        The decimal mark of the numbers (``","`` for ``3,14``), as ``pd.read_csv``'s.

    Returns
    -------
    sklearn.utils.Bunch or tuple
        ``data`` (DataFrame of the features), ``target`` (categorical Series),
        ``feature_names``, ``target_names``, ``frame`` and ``DESCR``.

    Examples
    --------
    >>> from importlib import resources
    >>> path = resources.files("bnclassify.datasets") / "data" / "car.csv"
    >>> bunch = load_csv(path)
    >>> bunch.data.shape, bunch.target.name
    ((1728, 6), 'class')
    """
    if kinds not in ("categorical", "auto"):
        raise ValueError(f"kinds must be 'categorical' or 'auto', got {kinds!r}.")
    strings = {"dtype": str} if kinds == "categorical" else {}
    options = {"sep": sep, "decimal": decimal, "keep_default_na": False, "na_values": [""]}
    try:
        frame = pd.read_csv(path, **options, **strings)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty: a CSV needs a header row.") from None
    except pd.errors.ParserError as error:
        raise ValueError(f"{path}: not a table pandas can read: {error}") from None
    trailing = [  # a trailing comma on every line: empty "Unnamed: k" columns
        c for c in frame.columns if str(c).startswith("Unnamed:") and frame[c].isna().all()
    ]
    frame = frame.drop(columns=trailing)
    if frame.shape[1] < 2:
        raise ValueError(f"{path}: need a header, at least one row and at least two columns.")
    if frame.empty:
        raise ValueError(f"{path} has a header but no data rows.")
    if target is None:  # the last column, unless it numbers the rows
        last = frame.columns[-1]
        numbers = pd.to_numeric(frame[last], errors="coerce").to_frame()
        if numbers.notna().all().all() and numbers.iloc[:, 0].eq(numbers.iloc[:, 0].round()).all():
            numbers = numbers.astype(np.int64)
        target = frame.columns[-2] if row_number_columns(numbers) else last
    if target not in frame.columns:
        raise ValueError(f"{path}: no column named {target!r}; columns are {list(frame.columns)}.")
    if kinds == "categorical":
        frame = frame.apply(_as_categorical)
    else:
        frame[target] = _as_categorical(frame[target])
    data = frame.drop(columns=[target])
    y = frame[target]
    if return_X_y:
        return data, y
    return Bunch(
        data=data,
        target=y,
        frame=frame,
        feature_names=list(data.columns),
        target_names=list(y.cat.categories),
        DESCR=descr,
    )


def _load_bundled(name, return_X_y, contacts=False):
    descr = (_DESCR / f"{name}.rst").read_text()
    bunch = load_csv(_DATA / f"{name}.csv", descr=descr)
    if contacts:
        matrix = pd.read_csv(_DATA / f"{name}_contacts.csv", index_col=0)
        bunch.contact_matrix = matrix.astype(float)
    if return_X_y:
        return bunch.data, bunch.target
    return bunch


def load_p450(*, return_X_y=False):
    """The 955 cytochrome P450 chimeras (8 blocks, 3 parents each) and their contact matrix.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` only.

    Returns
    -------
    sklearn.utils.Bunch
        ``data``, ``target``, ``frame``, ``feature_names``, ``target_names``,
        ``DESCR`` and ``contact_matrix`` (8 x 8 DataFrame labelled by block).

    Examples
    --------
    >>> p450 = load_p450()
    >>> p450.data.shape, p450.contact_matrix.loc["block1", "block7"]
    ((955, 8), np.float64(65.0))
    """
    return _load_bundled("p450", return_X_y, contacts=True)


def load_lactamase(*, return_X_y=False):
    """The 553 beta-lactamase chimeras (8 blocks) and their contact matrix.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` only.

    Returns
    -------
    sklearn.utils.Bunch
        As :func:`load_p450`.

    Examples
    --------
    >>> lac = load_lactamase()
    >>> lac.data.shape, lac.contact_matrix.shape
    ((553, 8), (8, 8))
    """
    return _load_bundled("lactamase", return_X_y, contacts=True)


def load_car(*, return_X_y=False):
    """UCI Car Evaluation: 1728 rows, 6 categorical features, 4 classes.

    Examples
    --------
    >>> load_car().target.value_counts()["unacc"]
    np.int64(1210)
    """
    return _load_bundled("car", return_X_y)


def load_nursery(*, return_X_y=False):
    """UCI Nursery: 12960 rows, 8 categorical features, 5 classes.

    Examples
    --------
    >>> load_nursery().data.shape
    (12960, 8)
    """
    return _load_bundled("nursery", return_X_y)


def load_vote(*, return_X_y=False):
    """UCI Congressional Voting Records: 435 rows, 16 y/n votes, with missing votes as NaN.

    Examples
    --------
    >>> X, y = load_vote(return_X_y=True)
    >>> int(X.isna().sum().sum()), int(X.isna().any(axis=1).sum())
    (392, 203)
    """
    return _load_bundled("vote", return_X_y)


def capsid_structure_path():
    """Path of a bundled crystal structure: the HIV-1 capsid C-terminal domain, PDB 1A8O.

    One chain (``A``), 70 residues numbered 151-220, 1.7 A X-ray structure
    (Gamble et al. 1997), gzipped PDB format (18 KB), as the Protein Data
    Bank distributes it: a small real structure to run the path from a
    structure file to a contact matrix
    (:func:`bnclassify.contacts.contact_matrix_from_structure`) without a
    network connection. Its source and licence are in its description,
    ``bnclassify/datasets/descr/1a8o.rst``.

    Returns
    -------
    pathlib.Path
        The file, which gemmi reads as it is (``pip install
        gemmi``).

    Examples
    --------
    >>> from bnclassify.contacts import contact_matrix_from_structure
    >>> path = capsid_structure_path()
    >>> path.name
    '1a8o.pdb.gz'
    >>> contact_matrix_from_structure(path, {"N": (151, 185), "C": (186, 220)})
         N    C
    N  129   42
    C   42  134
    """
    return Path(str(_DATA / "1a8o.pdb.gz"))
