"""The smoothing methods by name: what the estimators' ``smoothing=`` parameter takes.

The one place a name becomes a :class:`~bnclassify.parameters.Smoothing`: a new
method is one line of :data:`SMOOTHINGS`.
"""

from __future__ import annotations

from ..exceptions import InvalidParameterError
from ..validation import Constraint, validate_parameters
from .hdp import HDP
from .hls import HLS
from .smoothing import Laplace, Smoothing

#: ``smoothing=`` names and their classes (made with their defaults; "laplace" with the
#: estimator's ``alpha``).
SMOOTHINGS = {"laplace": Laplace, "hdp": HDP, "hls": HLS}
#: Names accepted but not available in this build, with what they will be.
PLANNED = {}


def smoothing_method(smoothing, alpha=1.0) -> Smoothing:
    """The :class:`Smoothing` that ``smoothing=`` names (a name or an instance).

    Parameters
    ----------
    smoothing : str or Smoothing
        A name of :data:`SMOOTHINGS` or an instance (used as it is).
    alpha : float, default=1.0
        The pseudo-count of ``"laplace"``.

    Returns
    -------
    Smoothing

    Examples
    --------
    >>> smoothing_method("laplace", 0.5)
    Laplace(alpha=0.5)
    >>> smoothing_method("hdp")
    HDP()
    """
    if isinstance(smoothing, Smoothing):
        return smoothing
    if smoothing == "laplace":
        return Laplace(alpha)
    if smoothing in SMOOTHINGS:
        return SMOOTHINGS[smoothing]()
    if smoothing in PLANNED:
        raise NotImplementedError(
            f"smoothing={smoothing!r} ({PLANNED[smoothing]}) is not available in this build of "
            f"bnclassify; the available methods are {sorted(SMOOTHINGS)}."
        )
    raise InvalidParameterError(
        f"smoothing must be one of {sorted([*SMOOTHINGS, *PLANNED])} or a "
        f"bnclassify.parameters.Smoothing instance, got {smoothing!r}."
    )


class SmoothingConstraint(Constraint):
    """``smoothing=``: a method's name or a :class:`Smoothing` instance, whose own options
    are checked against its ``_parameter_constraints``.

    Examples
    --------
    >>> SmoothingConstraint().check("hdp") is None, SmoothingConstraint().check("add-one")
    (True, '')
    """

    description = (
        f"one of {tuple(sorted([*SMOOTHINGS, *PLANNED]))} or a bnclassify.parameters.Smoothing "
        "instance (e.g. HDP(n_iter=1000))"
    )

    def check(self, value):
        if isinstance(value, str):
            return None if value in SMOOTHINGS or value in PLANNED else ""
        if isinstance(value, Smoothing):
            if getattr(value, "_parameter_constraints", None):
                validate_parameters(value, owner=type(value).__name__)
            return None
        return ""


#: The constraint of every estimator's ``smoothing`` parameter.
SMOOTHING = [SmoothingConstraint()]
